#include "driver/tpcc/run.hpp"

#include "driver/tpcc/run_stack.hpp"
#include "driver/tpcc/stacks/disk_run.hpp"
#include "driver/tpcc/with_stack.hpp"

namespace dbrepro::tpcc {

namespace {

RunResult dispatch(const RunConfig& c, const ProgressFn& progress) {
  return with_stack(c, [&]<class S>(std::type_identity<S>) {
    if constexpr (std::is_same_v<S, DiskStacks>) {
      return run_disk(c, progress);
    } else if constexpr (std::is_same_v<S, OptimalKernelStack>) {
      return run_optimal(c, progress);
    } else {
      return run_stack<S>(c, progress);  // compiled in its own file under driver/tpcc/stacks/
    }
  });
}

}  // namespace

RunResult run(const RunConfig& requested, const ProgressFn& progress) {
  validate(requested);
  const RunConfig config = resolve(requested);
  RunResult result = dispatch(config, progress);
  finish(result, config);
  return result;
}

void finish(RunResult& result, const RunConfig& config) {
  result.config = config;
  result.step = stack_step(config.stack);
  if (result.step >= 0) result.stack_label = kLadder[result.step].label;
  if (config.meter == "none") {
    const std::string why = PerfCounters::probe();
    result.counters.perf_error = why;
  }
}

}  // namespace dbrepro::tpcc
