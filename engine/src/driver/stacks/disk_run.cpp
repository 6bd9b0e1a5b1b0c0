#include "driver/stacks/disk_run.hpp"

#include "driver/stacks/disk_stack.hpp"

// The build generated one translation unit per entry of cache::Policies.
static_assert(DBREPRO_POLICY_COUNT == dbrepro::cache::kPolicyCount,
              "engine/CMakeLists.txt counted a different number of policies than cache/policies.hpp lists");

namespace dbrepro::tpcc {

RunResult run_disk(const RunConfig& config, const ProgressFn& progress) {
  if (!config.trace_path.empty()) return run_stack<DiskTraceStack>(config, progress);
  return cache::with_policy_at(cache::policy_index(config.cache_policy), [&]<size_t I>(std::integral_constant<size_t, I>) {
    return run_disk_policy<I>(config, progress);
  });
}

}  // namespace dbrepro::tpcc
