#pragma once
// Every replacement policy, and the one place a policy name becomes a type.
#include <array>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "cache/clock.hpp"
#include "cache/fifo.hpp"
#include "cache/lru.hpp"
#include "cache/policy.hpp"
#include "cache/s3fifo.hpp"
#include "cache/sieve.hpp"
#include "cache/soqol.hpp"
#include "cache/two_q.hpp"

namespace dbrepro::cache {

// The registry: adding a policy is its header and one entry here. The build
// (engine/CMakeLists.txt) reads this list to generate one translation unit of
// E5's disk stack per policy; Python reads it through `_engine.policies()`.
using Policies = std::tuple<Lru, Fifo, Clock, Sieve, S3Fifo, TwoQ, Soqol>;
inline constexpr size_t kPolicyCount = std::tuple_size_v<Policies>;
template <size_t I>
using PolicyAt = std::tuple_element_t<I, Policies>;

inline constexpr std::array<const char*, kPolicyCount> kPolicyNames =
    []<size_t... I>(std::index_sequence<I...>) { return std::array<const char*, kPolicyCount>{PolicyAt<I>::kName...}; }(
        std::make_index_sequence<kPolicyCount>{});

inline std::string policy_list() {
  std::string out;
  for (const char* n : kPolicyNames) out += (out.empty() ? "" : ", ") + std::string(n);
  return out;
}

// The position of a policy in the registry; throws naming the allowed ones.
inline size_t policy_index(const std::string& name) {
  for (size_t i = 0; i < kPolicyCount; ++i)
    if (name == kPolicyNames[i]) return i;
  throw std::invalid_argument("cache_policy: invalid value '" + name + "' (allowed: " + policy_list() + ")");
}

// Calls fn(std::integral_constant<size_t, I>{}) for the policy at `index`.
template <size_t I = 0, class Fn>
decltype(auto) with_policy_at(size_t index, Fn&& fn) {
  if constexpr (I + 1 < kPolicyCount) {
    if (index != I) return with_policy_at<I + 1>(index, std::forward<Fn>(fn));
  }
  return fn(std::integral_constant<size_t, I>{});
}

// Calls fn(std::type_identity<Policy>{}) for the named policy.
template <class Fn>
decltype(auto) with_policy(const std::string& name, Fn&& fn) {
  return with_policy_at(policy_index(name), [&]<size_t I>(std::integral_constant<size_t, I>) {
    return fn(std::type_identity<PolicyAt<I>>{});
  });
}

static_assert([]<size_t... I>(std::index_sequence<I...>) {
  return (ReplacementPolicy<PolicyAt<I>> && ...);
}(std::make_index_sequence<kPolicyCount>{}));

}  // namespace dbrepro::cache
