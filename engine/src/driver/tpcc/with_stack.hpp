#pragma once
// The one place a stack name becomes a type (as cache::with_policy does for
// replacement policies): with_stack(config, fn) calls fn(std::type_identity<T>)
// with the compiled stack the configuration names (stack_registry.hpp lists them).
#include <type_traits>
#include <utility>

#include "driver/tpcc/run_config.hpp"
#include "driver/tpcc/stack_registry.hpp"
#include "stack/engine.hpp"
#include "stack/ladder.hpp"

namespace dbrepro::tpcc {

struct OptimalKernelStack {};  // kernel/mem_engine.hpp: no Stack type, no phases
struct DiskStacks {};          // E5: one stack per replacement policy (driver/tpcc/stacks/disk_stack.hpp)

namespace detail {
template <int I = 0, class Fn>
decltype(auto) with_ladder_step(int step, Fn&& fn) {
  if constexpr (I + 1 < kOptimalStep) {
    if (step != I) return with_ladder_step<I + 1>(step, std::forward<Fn>(fn));
  }
  return fn(std::type_identity<LadderStack<I>>{});
}
}  // namespace detail

// `config` resolved (key_compare no longer "auto").
template <class Fn>
decltype(auto) with_stack(const RunConfig& config, Fn&& fn) {
  const StackInfo& stack = find_stack(config.stack);
  if (stack.disk) return fn(std::type_identity<DiskStacks>{});
  if (stack.step == kOptimalStep) return fn(std::type_identity<OptimalKernelStack>{});
  if (stack.step >= 0) return detail::with_ladder_step(stack.step, std::forward<Fn>(fn));
  if (config.key_compare == "generic") return fn(std::type_identity<BareStack<GenericKeyCompare>>{});
  return fn(std::type_identity<BareStack<IntegerKeyCompare>>{});
}

}  // namespace dbrepro::tpcc
