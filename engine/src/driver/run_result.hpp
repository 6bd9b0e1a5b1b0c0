#pragma once
// What one TPC-C run measured. Plain data: the bindings turn it into a
// Python dict and a pandas DataFrame, the native CLI into JSON.
#include <array>
#include <string>
#include <vector>

#include "driver/run_config.hpp"

namespace dbrepro::tpcc {

struct TxnStats {
  u64 commits = 0;
  u64 aborts = 0;          // user aborts (invalid item): expected, not errors
  double seconds = 0.0;    // wall time spent inside this transaction type
};

struct ConsistencyCheck {
  int condition = 0;       // TPC-C clause 3.3.2.x
  std::string description;
  bool passed = false;
  std::string detail;      // first violation, if any
};

struct RunResult {
  RunConfig config;
  std::array<TxnStats, kTxnTypeCount> per_type{};
  u64 transactions = 0;        // attempted (commits + aborts)
  double elapsed_seconds = 0;  // wall time of the measured phase
  double cpu_seconds = 0;      // thread CPU time of the measured phase
  double load_seconds = 0;     // wall time to populate the database
  u64 database_pages = 0;
  u64 database_bytes = 0;
  bool interrupted = false;    // stopped early by the progress callback
  std::vector<ConsistencyCheck> consistency;

  double throughput() const { return elapsed_seconds > 0 ? transactions / elapsed_seconds : 0.0; }
  bool consistent() const {
    for (const auto& c : consistency)
      if (!c.passed) return false;
    return true;
  }
};

}  // namespace dbrepro::tpcc
