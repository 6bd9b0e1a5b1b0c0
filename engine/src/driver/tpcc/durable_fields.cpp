#include "driver/tpcc/durable_fields.hpp"

#include <array>
#include <stdexcept>

#include "driver/tpcc/fields.hpp"

namespace dbrepro::tpcc {

namespace {

using config::float_of;
using config::integer;
using config::text_of;
using config::unsigned_of;

// A run setting, set and read through TPC-C's run table.
template <const char* Name>
void set_run(DurableRunConfig& c, const FieldValue& v) {
  find_run_field(Name).set(c.run, v);
}
template <const char* Name>
FieldValue get_run(const DurableRunConfig& c) {
  return find_run_field(Name).get(c.run);
}

constexpr char kStack[] = "stack", kWarehouses[] = "warehouses", kSeconds[] = "seconds",
               kTransactions[] = "transactions", kSeed[] = "seed", kMix[] = "mix";

const std::array<DurableField, 11> kDurableFields = {{
    {"dir", FieldType::kText, "", "a folder", "the database directory (required; created there if it is empty)",
     [](DurableRunConfig& c, const FieldValue& v) { c.dir = text_of("dir", v); },
     [](const DurableRunConfig& c) { return FieldValue{c.dir}; }},
    {"stack", FieldType::kText, "", "step0, step1", "the engine stack (a log flushed at commit)", set_run<kStack>,
     get_run<kStack>},
    {"warehouses", FieldType::kUnsigned, "", "1..65535",
     "a new database's scale; an existing one's must agree (default: the database's own)",
     [](DurableRunConfig& c, const FieldValue& v) {
       set_run<kWarehouses>(c, v);
       c.warehouses_given = true;
     },
     get_run<kWarehouses>},
    {"terminals", FieldType::kUnsigned, "", "1..4095", "terminals (threads) running transactions at once",
     [](DurableRunConfig& c, const FieldValue& v) {
       c.run.terminals = unsigned_of<u32>("terminals", v, 1, kMaxDurableTerminals);
     },
     [](const DurableRunConfig& c) { return integer(c.run.terminals); }},
    {"seconds", FieldType::kFloat, "s", ">= 0", "stop after this long (0: no time limit)", set_run<kSeconds>,
     get_run<kSeconds>},
    {"transactions", FieldType::kUnsigned, "", ">= 0", "stop after this many transactions (0: until killed)",
     set_run<kTransactions>, get_run<kTransactions>},
    {"seed", FieldType::kUnsigned, "", ">= 0", "random seed", set_run<kSeed>, get_run<kSeed>},
    {"mix", FieldType::kMix, "", "TYPE=WEIGHT,...", "weights per transaction type", set_run<kMix>, get_run<kMix>},
    {"run_id", FieldType::kUnsigned, "", "1..16777215",
     "this run's id, in its commits' stamps; above every earlier run's (default: one past the last)",
     [](DurableRunConfig& c, const FieldValue& v) { c.run_id = unsigned_of<u64>("run_id", v, 1, kMaxRunId); },
     [](const DurableRunConfig& c) { return integer(c.run_id.value_or(0)); }},
    {"acks", FieldType::kText, "", "a file outside the directory",
     "durable-run: the file each acknowledged commit is appended to; recover: a file to check (repeatable)",
     [](DurableRunConfig& c, const FieldValue& v) { c.acks_paths.push_back(text_of("acks", v)); },
     [](const DurableRunConfig& c) { return FieldValue{c.acks_paths.empty() ? std::string() : c.acks_paths.front()}; }},
    {"checkpoint_every", FieldType::kFloat, "s", "0..86400", "seconds between checkpoints (0: only at open)",
     [](DurableRunConfig& c, const FieldValue& v) {
       c.checkpoint_every = float_of("checkpoint_every", v);
       check_checkpoint_every(c.checkpoint_every);
     },
     [](const DurableRunConfig& c) { return FieldValue{c.checkpoint_every}; }},
}};

}  // namespace

std::span<const DurableField> durable_fields() { return kDurableFields; }

}  // namespace dbrepro::tpcc
