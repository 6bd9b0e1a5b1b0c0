#pragma once
// E1's settings table (a common/config_fields.hpp table): what one count of
// "OLTP through the looking glass" measures — which ladder step, which
// transaction type run alone, how instructions are counted — and the TPC-C
// settings it passes on to the run it counts (their meaning and checks are the
// TPC-C run table's, driver/tpcc/fields.hpp). The count itself fixes the
// rest: the step's stack, a one-type mix, no consistency check.
#include <span>
#include <string>

#include "common/config_fields.hpp"
#include "driver/tpcc/run_config.hpp"

namespace dbrepro::looking_glass {

struct CountConfig {
  u32 step = 0;                                       // required (no default a count could assume)
  tpcc::TxnType txn_type = tpcc::TxnType::kNewOrder;  // required
  std::string backend = "auto";                       // auto, perf or callgrind
  bool cycles = true;
  tpcc::RunConfig run = counted_run_defaults();       // only its passed-on settings are set

  static tpcc::RunConfig counted_run_defaults() {
    tpcc::RunConfig run;
    run.transactions = 1000;  // a count's default length; the run table's is a timed run's
    return run;
  }
};

using CountField = config::Field<CountConfig>;

std::span<const CountField> count_fields();

// The settings a caller must give (step, txn_type): `dbrepro run looking_glass`
// requires them and the table shows no default for them.
std::span<const char* const> required_count_fields();

// The TPC-C run the count makes: the step's stack, the type alone, no
// consistency check; checked as every run is (tpcc::validate).
tpcc::RunConfig counted_run(const CountConfig& config);

// Every setting's range (as the setters check them) and the counted run's.
void validate(const CountConfig& config);

}  // namespace dbrepro::looking_glass
