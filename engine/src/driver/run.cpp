#include "driver/run.hpp"

#include "driver/run_stack.hpp"
#include "driver/stacks/disk_run.hpp"

namespace dbrepro::tpcc {

namespace {

RunResult dispatch(const RunConfig& c, const ProgressFn& progress) {
  if (c.stack == "disk") return run_disk(c, progress);
  switch (stack_step(c.stack)) {
    case -1:
      return c.key_compare == "generic" ? run_stack<BareStack<GenericKeyCompare>>(c, progress)
                                        : run_stack<BareStack<IntegerKeyCompare>>(c, progress);
    case 0: return run_stack<Step0>(c, progress);
    case 1: return run_stack<Step1>(c, progress);
    case 2: return run_stack<Step2>(c, progress);
    case 3: return run_stack<Step3>(c, progress);
    case 4: return run_stack<Step4>(c, progress);
    case 5: return run_stack<Step5>(c, progress);
    case 6: return run_stack<Step6>(c, progress);
    case 7: return run_stack<Step7>(c, progress);
    case 8: return run_stack<Step8>(c, progress);  // step 7's stack with 32 KB pages
    case 9: return run_stack<Step9>(c, progress);
    case 10: return run_stack<Step10>(c, progress);
    default: return run_optimal(c, progress);
  }
}

}  // namespace

RunResult run(const RunConfig& requested, const ProgressFn& progress) {
  validate(requested);
  const RunConfig config = resolve(requested);
  RunResult result = dispatch(config, progress);
  result.config = config;
  result.step = stack_step(config.stack);
  if (result.step >= 0) result.stack_label = kLadder[result.step].label;
  if (config.meter == "none") {
    const std::string why = PerfCounters::probe();
    result.counters.perf_error = why;
  }
  return result;
}

}  // namespace dbrepro::tpcc
