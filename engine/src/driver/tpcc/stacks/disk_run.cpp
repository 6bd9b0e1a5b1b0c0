#include "driver/tpcc/stacks/disk_run.hpp"

#include "driver/tpcc/stacks/disk_stack.hpp"

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

std::unique_ptr<LoadedDisk> load_disk(const RunConfig& requested) {
  validate(requested);
  if (requested.stack != "disk") throw std::invalid_argument("stack: a loaded database runs on stack disk, got '" + requested.stack + "'");
  if (!requested.trace_path.empty()) throw std::invalid_argument("trace_path: a loaded database records no trace");
  if (requested.meter != "none") throw std::invalid_argument("meter: a loaded database runs with meter none, got '" + requested.meter + "'");
  const RunConfig config = resolve(requested);
  return cache::with_policy_at(cache::policy_index(config.cache_policy), [&]<size_t I>(std::integral_constant<size_t, I>) {
    return load_disk_policy<I>(config);
  });
}

}  // namespace dbrepro::tpcc
