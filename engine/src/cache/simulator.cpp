#include "cache/simulator.hpp"

namespace dbrepro::cache {

TraceStats simulate(const std::string& policy, std::span<const u64> trace, u32 capacity, u64 warmup) {
  return with_policy(policy, [&]<class P>(std::type_identity<P>) { return simulate<P>(trace, capacity, warmup); });
}

}  // namespace dbrepro::cache
