#include "driver/looking_glass/fields.hpp"

#include <array>
#include <stdexcept>
#include <string>
#include <vector>

#include "driver/tpcc/fields.hpp"
#include "stack/ladder.hpp"

namespace dbrepro::looking_glass {

namespace {

using config::FieldType;
using config::FieldValue;

// The two types the paper counts (its Figures 5 and 6); the others have no
// phase functions a count attributes instructions to.
constexpr std::array<tpcc::TxnType, 2> kCountedTypes = {tpcc::TxnType::kNewOrder, tpcc::TxnType::kPayment};
constexpr std::array<const char*, 3> kBackends = {"auto", "perf", "callgrind"};
constexpr std::array<const char*, 2> kRequired = {"step", "txn_type"};

const std::string& step_range() {
  static const std::string range = "0.." + std::to_string(kOptimalStep);
  return range;
}

const std::string& step_help() {
  static const std::string help = "ladder step (0 = the full stack ... " + std::to_string(kOptimalStep - 1) +
                                  " = stripped, " + std::to_string(kOptimalStep) +
                                  " = the optimal kernel; `dbrepro list` prints them)";
  return help;
}

// A passed-on setting is the TPC-C run table's row, set on the counted run
// (a field's function pointers cannot capture the name, so the name is a
// template argument).
template <const char* kName>
void set_passed_on(CountConfig& c, const FieldValue& v) {
  tpcc::find_run_field(kName).set(c.run, v);
}
template <const char* kName>
FieldValue get_passed_on(const CountConfig& c) {
  return tpcc::find_run_field(kName).get(c.run);
}
constexpr char kWarehouses[] = "warehouses";
constexpr char kSeed[] = "seed";
constexpr char kVariant[] = "variant";

CountField passed_on(const char* name, const char* range, const char* help,
                     void (*set)(CountConfig&, const FieldValue&), FieldValue (*get)(const CountConfig&)) {
  const tpcc::RunField& row = tpcc::find_run_field(name);
  return {row.name, row.type, row.unit, range != nullptr ? range : row.range, help != nullptr ? help : row.help,
          set, get};
}

std::vector<CountField> make_fields() {
  std::vector<CountField> fields = {
      {"step", FieldType::kUnsigned, "", step_range().c_str(), step_help().c_str(),
       [](CountConfig& c, const FieldValue& v) { c.step = config::unsigned_of<u32>("step", v, 0, kOptimalStep); },
       [](const CountConfig& c) { return config::integer(c.step); }},
      {"txn_type", FieldType::kText, "", "new_order, payment", "the transaction type counted, run alone",
       [](CountConfig& c, const FieldValue& v) {
         const std::string& name = config::text_of("txn_type", v);
         for (tpcc::TxnType type : kCountedTypes)
           if (name == tpcc::kTxnTypeNames[static_cast<int>(type)]) {
             c.txn_type = type;
             return;
           }
         throw std::invalid_argument("txn_type: must be new_order or payment (the types the paper counts), got '" +
                                     name + "'");
       },
       [](const CountConfig& c) { return FieldValue{std::string(tpcc::kTxnTypeNames[static_cast<int>(c.txn_type)])}; }},
      {"backend", FieldType::kText, "", "auto, perf, callgrind",
       "instruction counter: perf = CPU counters, callgrind = valgrind; auto = perf where available",
       [](CountConfig& c, const FieldValue& v) {
         const std::string& name = config::text_of("backend", v);
         for (const char* backend : kBackends)
           if (name == backend) {
             c.backend = name;
             return;
           }
         throw std::invalid_argument("backend: must be auto, perf or callgrind, got '" + name + "'");
       },
       [](const CountConfig& c) { return FieldValue{c.backend}; }},
      {"cycles", FieldType::kBool, "", "", "also count cycles (callgrind: its slower cache and branch simulation estimates them)",
       [](CountConfig& c, const FieldValue& v) { c.cycles = config::bool_of("cycles", v); },
       [](const CountConfig& c) { return FieldValue{c.cycles}; }},
  };
  fields.push_back(passed_on("transactions", ">= 1", "transactions of the counted type, all counted",
                             [](CountConfig& c, const FieldValue& v) {
                               c.run.transactions = config::unsigned_of<u64>("transactions", v, 1, config::kRecordIntegerMax);
                             },
                             [](const CountConfig& c) { return config::integer(c.run.transactions); }));
  fields.push_back(passed_on("warehouses", nullptr, nullptr, set_passed_on<kWarehouses>, get_passed_on<kWarehouses>));
  fields.push_back(passed_on("seed", nullptr, nullptr, set_passed_on<kSeed>, get_passed_on<kSeed>));
  fields.push_back(passed_on("variant", nullptr, nullptr, set_passed_on<kVariant>, get_passed_on<kVariant>));
  return fields;
}

}  // namespace

std::span<const CountField> count_fields() {
  static const std::vector<CountField> fields = make_fields();
  return fields;
}

std::span<const char* const> required_count_fields() { return kRequired; }

tpcc::RunConfig counted_run(const CountConfig& config) {
  tpcc::RunConfig run = config.run;
  run.stack = kLadder[config.step].name;
  run.mix.fill(0.0);
  run.mix[static_cast<int>(config.txn_type)] = 1.0;
  run.check_consistency = false;
  return run;
}

void validate(const CountConfig& config) { tpcc::validate(counted_run(config)); }

}  // namespace dbrepro::looking_glass
