#pragma once
// E5: a run on the disk-backed pool, with the replacement policy the
// configuration names (each policy is its own compiled stack).
#include "driver/tpcc/run.hpp"

namespace dbrepro::tpcc {

RunResult run_disk(const RunConfig& config, const ProgressFn& progress);

}  // namespace dbrepro::tpcc
