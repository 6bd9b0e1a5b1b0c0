#pragma once
// The one entry point every front end uses: load a TPC-C database for the
// configuration, run the transaction mix, check consistency.
#include <functional>

#include "driver/tpcc/run_result.hpp"

namespace dbrepro::tpcc {

// Called every config.progress_every transactions with (done, total; total is
// 0 for a timed run). Returning false stops the run cleanly (Ctrl-C).
using ProgressFn = std::function<bool(u64 done, u64 total)>;

RunResult run(const RunConfig& config, const ProgressFn& progress = {});

// What every run's result says of the configuration it ran (the config, E1's
// step and its label, why there are no counters): run() and E5's loaded cells.
void finish(RunResult& result, const RunConfig& config);

}  // namespace dbrepro::tpcc
