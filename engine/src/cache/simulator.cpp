#include "cache/simulator.hpp"

namespace dbrepro::cache {

TraceStats simulate(const std::string& policy, std::span<const u64> trace, u32 capacity) {
  return with_policy(policy, [&]<class P>(std::type_identity<P>) { return simulate<P>(trace, capacity); });
}

}  // namespace dbrepro::cache
