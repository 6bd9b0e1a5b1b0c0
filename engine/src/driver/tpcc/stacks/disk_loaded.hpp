#pragma once
// LoadedDisk (driver/tpcc/loaded_disk.hpp) on one compiled disk stack: the engine
// and its loaded database, run once at the fraction a cell asks for.
#include <stdexcept>

#include "driver/tpcc/loaded_disk.hpp"
#include "driver/tpcc/run_stack.hpp"

namespace dbrepro::tpcc {

template <class S>
class LoadedDiskOn final : public LoadedDisk {
  static_assert(!detail::kFlushesLog<S>, "a loaded database keeps no log file");

 public:
  explicit LoadedDiskOn(const RunConfig& config) : config_(config), engine_(engine_options(config)), loaded_(engine_, config) {}

  RunResult run_cell(double pool_fraction, const ProgressFn& progress) override {
    if (ran_) throw std::runtime_error("run_cell: this copy of the loaded database has run; fork a copy per cell");
    ran_ = true;
    RunConfig cell = config_;
    cell.pool_fraction = pool_fraction;
    engine_.pages().set_fraction(pool_fraction);
    RunResult result = run_loaded(engine_, loaded_, cell, progress, nullptr);
    result.log_bytes_written = engine_.log().bytes_written();
    result.log_syncs = engine_.log().syncs();
    result.components = S::describe();
    finish(result, cell);
    return result;
  }

 private:
  RunConfig config_;
  Engine<S> engine_;
  LoadedDatabase<Engine<S>> loaded_;
  bool ran_ = false;
};

}  // namespace dbrepro::tpcc
