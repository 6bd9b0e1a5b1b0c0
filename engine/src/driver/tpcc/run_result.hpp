#pragma once
// What one TPC-C run measured. Plain data: the bindings turn it into a
// Python dict and a pandas DataFrame, the native CLI into JSON.
#include <array>
#include <string>
#include <utility>
#include <vector>

#include "buffer/disk_pool_stats.hpp"
#include "driver/tpcc/run_config.hpp"
#include "measure/phase.hpp"
#include "tpcc/consistency_check.hpp"

namespace dbrepro::tpcc {

struct TxnStats {
  u64 commits = 0;
  u64 aborts = 0;          // user aborts (invalid item): expected, not errors
  u64 retries = 0;         // deadlock victims (lock wait timed out): rolled back and run again
  double seconds = 0.0;    // wall time spent inside this transaction type
  i64 instructions = 0;    // user-space, from hardware counters (meter "perf" only)
  i64 cycles = 0;
};

// Instructions and cycles of one phase (meter "perf" only), the measured
// cost of the counter reads already subtracted.
struct PhaseCount {
  i64 instructions = 0;
  i64 cycles = 0;
  u64 calls = 0;
};

struct CounterInfo {
  std::string meter = "none";    // what metered this run
  std::string perf_error;        // why perf_event is unavailable ("" if it is)
  i64 read_cost_instructions = 0;
  i64 read_cost_cycles = 0;
};

struct RunResult {
  RunConfig config;          // resolved: no "auto" left
  int step = -1;             // E1 ladder step, -1 for the bare stack
  std::string stack_label;   // the paper's name of the step's switch
  std::vector<std::pair<std::string, std::string>> components;  // component -> form in this stack
  std::array<TxnStats, kTxnTypeCount> per_type{};
  u64 transactions = 0;        // attempted (commits + aborts)
  double elapsed_seconds = 0;  // wall time of the measured phase
  double cpu_seconds = 0;      // thread CPU time of the measured phase
  double load_seconds = 0;     // wall time to populate the database
  u64 database_pages = 0;
  u64 database_bytes = 0;
  bool interrupted = false;    // stopped early by the progress callback
  u64 log_bytes_written = 0;   // by a flushing disk log
  u64 log_syncs = 0;
  CounterInfo counters;
  std::array<PhaseCount, kPhaseCount> phases{};
  std::vector<ConsistencyCheck> consistency;
  DiskPoolStats pool;          // E5 disk stack: the pool in the measured phase (policy "" elsewhere)

  double throughput() const { return elapsed_seconds > 0 ? transactions / elapsed_seconds : 0.0; }
  bool consistent() const {
    for (const auto& c : consistency)
      if (!c.passed) return false;
    return true;
  }
};

}  // namespace dbrepro::tpcc
