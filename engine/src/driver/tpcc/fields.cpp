#include "driver/tpcc/fields.hpp"

#include <array>
#include <stdexcept>

namespace dbrepro::tpcc {

namespace {

using config::bool_of;
using config::float_of;
using config::integer;
using config::text_of;
using config::unsigned_of;
using config::wrong_type;

const std::array<RunField, 21> kRunFields = {{
    {"warehouses", FieldType::kUnsigned, "", "1..65535", "TPC-C scale factor (about 100 MB each)",
     [](RunConfig& c, const FieldValue& v) { c.warehouses = unsigned_of<u32>("warehouses", v, 1, kMaxWarehouses); },
     [](const RunConfig& c) { return integer(c.warehouses); }},
    {"transactions", FieldType::kUnsigned, "", ">= 0; 0 needs seconds > 0", "stop after this many transactions (0: run for `seconds` only)",
     [](RunConfig& c, const FieldValue& v) { c.transactions = unsigned_of<u64>("transactions", v, 0, config::kRecordIntegerMax); },
     [](const RunConfig& c) { return integer(c.transactions); }},
    {"warmup_transactions", FieldType::kUnsigned, "", ">= 0",
     "transactions run by one terminal before the measured phase, not counted (0: measure from the start)",
     [](RunConfig& c, const FieldValue& v) { c.warmup_transactions = unsigned_of<u64>("warmup_transactions", v, 0, config::kRecordIntegerMax); },
     [](const RunConfig& c) { return integer(c.warmup_transactions); }},
    {"seconds", FieldType::kFloat, "s", ">= 0", "stop after this long (0: no time limit)",
     [](RunConfig& c, const FieldValue& v) { c.seconds = float_of("seconds", v); },
     [](const RunConfig& c) { return FieldValue{c.seconds}; }},
    {"mix", FieldType::kMix, "", "TYPE=WEIGHT, TYPE of new_order, payment, order_status, delivery, stock_level; weights >= 0, sum > 0", "weights per transaction type, omitted types weigh 0",
     [](RunConfig& c, const FieldValue& v) {
       const auto* mix = std::get_if<std::map<std::string, double>>(&v);
       if (mix == nullptr) wrong_type("mix", "a mapping of transaction type to weight");
       c.mix.fill(0.0);
       for (const auto& [name, weight] : *mix) c.mix[static_cast<int>(parse_txn_type(name))] = weight;
     },
     [](const RunConfig& c) {
       std::map<std::string, double> mix;
       for (int i = 0; i < kTxnTypeCount; ++i)
         if (c.mix[i] != 0) mix[kTxnTypeNames[i]] = c.mix[i];
       return FieldValue{mix};
     }},
    {"variant", FieldType::kText, "", "paper, spec", "transaction inputs: paper (the looking-glass paper's) or spec (TPC-C's)",
     [](RunConfig& c, const FieldValue& v) { c.variant = parse_variant(text_of("variant", v)); },
     [](const RunConfig& c) { return FieldValue{std::string(variant_name(c.variant))}; }},
    {"seed", FieldType::kUnsigned, "", ">= 0", "random seed; same seed and settings, same transactions",
     [](RunConfig& c, const FieldValue& v) { c.seed = unsigned_of<u64>("seed", v, 0, config::kRecordIntegerMax); },
     [](const RunConfig& c) { return integer(c.seed); }},
    {"stack", FieldType::kText, "", "a stack of `dbrepro list`", "the engine stack (driver/tpcc/stack_registry.hpp)",
     [](RunConfig& c, const FieldValue& v) { c.stack = text_of("stack", v); },
     [](const RunConfig& c) { return FieldValue{c.stack}; }},
    {"page_size", FieldType::kUnsigned, "bytes", "0, or a power of two in 1024..65536", "page size in bytes (0: the stack's default)",
     [](RunConfig& c, const FieldValue& v) { c.page_size = unsigned_of<u32>("page_size", v); },
     [](const RunConfig& c) { return integer(c.page_size); }},
    {"key_compare", FieldType::kText, "", "auto, generic, integer", "B-tree key search: auto (the stack's), generic or integer (bare only)",
     [](RunConfig& c, const FieldValue& v) { c.key_compare = text_of("key_compare", v); },
     [](const RunConfig& c) { return FieldValue{c.key_compare}; }},
    {"meter", FieldType::kText, "", "none, perf", "none, or perf for per-phase hardware counters",
     [](RunConfig& c, const FieldValue& v) { c.meter = text_of("meter", v); },
     [](const RunConfig& c) { return FieldValue{c.meter}; }},
    {"log_dir", FieldType::kText, "", "a folder", "where a flushing log writes its file (empty: $TMPDIR or /tmp)",
     [](RunConfig& c, const FieldValue& v) { c.log_dir = text_of("log_dir", v); },
     [](const RunConfig& c) { return FieldValue{c.log_dir}; }},
    {"progress_every", FieldType::kUnsigned, "", ">= 1", "transactions between progress callbacks",
     [](RunConfig& c, const FieldValue& v) { c.progress_every = unsigned_of<u64>("progress_every", v); },
     [](const RunConfig& c) { return integer(c.progress_every); }},
    {"check_consistency", FieldType::kBool, "", "", "check the TPC-C consistency conditions after the run",
     [](RunConfig& c, const FieldValue& v) { c.check_consistency = bool_of("check_consistency", v); },
     [](const RunConfig& c) { return FieldValue{c.check_consistency}; }},
    {"cache_policy", FieldType::kText, "", "a policy of `dbrepro list`", "E5 (stack disk): the page replacement policy (cache/policies.hpp)",
     [](RunConfig& c, const FieldValue& v) { c.cache_policy = text_of("cache_policy", v); },
     [](const RunConfig& c) { return FieldValue{c.cache_policy}; }},
    {"pool_fraction", FieldType::kFloat, "", "(0, 1]", "E5: pool frames / database pages at the start of the run",
     [](RunConfig& c, const FieldValue& v) { c.pool_fraction = float_of("pool_fraction", v); },
     [](const RunConfig& c) { return FieldValue{c.pool_fraction}; }},
    {"data_dir", FieldType::kText, "", "a folder", "E5: where the database file goes (empty: $TMPDIR or /tmp)",
     [](RunConfig& c, const FieldValue& v) { c.data_dir = text_of("data_dir", v); },
     [](const RunConfig& c) { return FieldValue{c.data_dir}; }},
    {"o_direct", FieldType::kBool, "", "", "E5: read and write the file with O_DIRECT where allowed",
     [](RunConfig& c, const FieldValue& v) { c.o_direct = bool_of("o_direct", v); },
     [](const RunConfig& c) { return FieldValue{c.o_direct}; }},
    {"trace_path", FieldType::kText, "", "a file", "E5: record the page reference string here (one terminal)",
     [](RunConfig& c, const FieldValue& v) { c.trace_path = text_of("trace_path", v); },
     [](const RunConfig& c) { return FieldValue{c.trace_path}; }},
    {"trace_format", FieldType::kText, "", "txt, csv, oracle_general", "E5: txt (one id per line), csv (id,size) or oracle_general",
     [](RunConfig& c, const FieldValue& v) { c.trace_format = text_of("trace_format", v); },
     [](const RunConfig& c) { return FieldValue{c.trace_format}; }},
    {"terminals", FieldType::kUnsigned, "", "1..1024", "terminals (threads) running transactions at once",
     [](RunConfig& c, const FieldValue& v) { c.terminals = unsigned_of<u32>("terminals", v, 1, kMaxTerminals); },
     [](const RunConfig& c) { return integer(c.terminals); }},
}};

}  // namespace

std::span<const RunField> run_fields() { return kRunFields; }

const RunField& find_run_field(const std::string& name) { return config::find_field(run_fields(), name); }

}  // namespace dbrepro::tpcc
