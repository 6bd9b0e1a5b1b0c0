#include "driver/stacks/disk_run.hpp"

#include "driver/stacks/disk_stack.hpp"

namespace dbrepro::tpcc {

RunResult run_disk(const RunConfig& config, const ProgressFn& progress) {
  if (!config.trace_path.empty()) return run_stack<DiskTraceStack>(config, progress);
  return cache::with_policy(config.cache_policy,
                            [&]<class P>(std::type_identity<P>) { return run_stack<DiskStack<P>>(config, progress); });
}

}  // namespace dbrepro::tpcc
