#pragma once
// E5's scale sweep: one TPC-C database loaded once on the disk stack, then
// run at several pool fractions. The mix changes the database, so each
// fraction runs on a copy of the loaded state: a fork, whose copy-on-write
// pages leave the loaded database pristine in the parent (the fork is the
// caller's, bindings/dbrepro/fifo_cache.py's run_cells). Each copy writes
// the database file afresh and drops it from the kernel's page cache, as a
// run of its own does (DiskPool::start_run), so a cell counts what a run of
// its own counts for the same seed.
#include <memory>

#include "driver/tpcc/run.hpp"

namespace dbrepro::tpcc {

class LoadedDisk {
 public:
  virtual ~LoadedDisk() = default;
  // The run, its pool at `pool_fraction` of the database's pages; once per
  // copy (a second call throws: the first changed the database).
  virtual RunResult run_cell(double pool_fraction, const ProgressFn& progress) = 0;
};

// Loads the database the configuration names (stack "disk", its
// cache_policy, no trace, meter "none"); pool_fraction is each cell's.
std::unique_ptr<LoadedDisk> load_disk(const RunConfig& config);

}  // namespace dbrepro::tpcc
