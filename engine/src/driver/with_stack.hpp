#pragma once
// The one place a stack name becomes a type (as cache::with_policy does for
// replacement policies): with_stack(config, fn) calls fn(std::type_identity<T>)
// with the compiled stack the configuration names (stack_registry.hpp lists them).
#include <tuple>
#include <type_traits>
#include <utility>

#include "driver/run_config.hpp"
#include "driver/stack_registry.hpp"
#include "stack/engine.hpp"
#include "stack/ladder.hpp"

namespace dbrepro::tpcc {

struct OptimalKernelStack {};  // kernel/mem_engine.hpp: no Stack type, no phases
struct DiskStacks {};          // E5: one stack per replacement policy (driver/stacks/disk_stack.hpp)

// Steps 0..10 of the ladder, in order (step 8 is step 7's type with 32 KB pages).
using LadderStacks = std::tuple<Step0, Step1, Step2, Step3, Step4, Step5, Step6, Step7, Step8, Step9, Step10>;
static_assert(std::tuple_size_v<LadderStacks> == kOptimalStep);

namespace detail {
template <size_t I = 0, class Fn>
decltype(auto) with_ladder_step(int step, Fn&& fn) {
  if constexpr (I + 1 < std::tuple_size_v<LadderStacks>) {
    if (step != static_cast<int>(I)) return with_ladder_step<I + 1>(step, std::forward<Fn>(fn));
  }
  return fn(std::type_identity<std::tuple_element_t<I, LadderStacks>>{});
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
