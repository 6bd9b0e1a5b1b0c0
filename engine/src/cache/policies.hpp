#pragma once
// Every replacement policy, and the one place a policy name becomes a type.
#include <array>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "cache/clock.hpp"
#include "cache/fifo.hpp"
#include "cache/lru.hpp"
#include "cache/policy.hpp"
#include "cache/s3fifo.hpp"
#include "cache/sieve.hpp"
#include "cache/soqol.hpp"
#include "cache/two_q.hpp"

namespace dbrepro::cache {

inline constexpr std::array<const char*, 7> kPolicyNames = {Lru::kName,    Fifo::kName, Clock::kName, Sieve::kName,
                                                            S3Fifo::kName, TwoQ::kName, Soqol::kName};

inline std::string policy_list() {
  std::string out;
  for (const char* n : kPolicyNames) out += (out.empty() ? "" : ", ") + std::string(n);
  return out;
}

// Calls fn(std::type_identity<Policy>{}) for the named policy.
template <class Fn>
decltype(auto) with_policy(const std::string& name, Fn&& fn) {
  if (name == Lru::kName) return fn(std::type_identity<Lru>{});
  if (name == Fifo::kName) return fn(std::type_identity<Fifo>{});
  if (name == Clock::kName) return fn(std::type_identity<Clock>{});
  if (name == Sieve::kName) return fn(std::type_identity<Sieve>{});
  if (name == S3Fifo::kName) return fn(std::type_identity<S3Fifo>{});
  if (name == TwoQ::kName) return fn(std::type_identity<TwoQ>{});
  if (name == Soqol::kName) return fn(std::type_identity<Soqol>{});
  throw std::invalid_argument("cache_policy: invalid value '" + name + "' (allowed: " + policy_list() + ")");
}

static_assert(ReplacementPolicy<Lru> && ReplacementPolicy<Fifo> && ReplacementPolicy<Clock> &&
              ReplacementPolicy<Sieve> && ReplacementPolicy<S3Fifo> && ReplacementPolicy<TwoQ> &&
              ReplacementPolicy<Soqol>);

}  // namespace dbrepro::cache
