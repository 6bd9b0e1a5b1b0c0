#pragma once
// The interface every replacement policy offers (a compile-time policy: the
// pool and the trace simulator are templates over it, no virtual calls).
//
//   explicit P(u32 capacity)            slots 0..capacity-1
//   static constexpr const char* kName  the name runs and traces use
//   void hit(u32 slot)                  a resident page was requested; may run on
//                                       any thread, concurrently with the rest
//   void miss(u64 id)                   a page not resident was requested, before
//                                       any eviction (policies with a ghost look there)
//   u32 evict(Claim&& claim)            chooses a victim and removes it from the
//                                       policy; claim(slot) says whether that slot
//                                       may go now (false: pinned, try another)
//   void insert(u32 slot, u64 id)       the page `id` now lives in `slot`
//   u64 hit_locks() const               locks taken on the hit path so far
//   u64 ghost_hits() const              optional, policies with a ghost of evicted
//                                       ids (2Q, S3-FIFO): misses found there so far
//
// miss, evict and insert run one at a time (under the pool's miss latch, or
// in the single-threaded simulator). The point of study E5: LRU must lock
// on every hit; the FIFO family writes at most one byte per hit.
#include <concepts>

#include "common/types.hpp"

namespace dbrepro::cache {

inline bool claim_any(u32) { return true; }

template <class P>
concept ReplacementPolicy = requires(P p, const P cp, u32 slot, u64 id) {
  { P::kName } -> std::convertible_to<const char*>;
  p.hit(slot);
  p.miss(id);
  { p.evict(claim_any) } -> std::same_as<u32>;
  p.insert(slot, id);
  { cp.hit_locks() } -> std::same_as<u64>;
};

// A policy's ghost hits, 0 for one without a ghost (read where counts are
// summed, never on the hit path).
template <class P>
u64 ghost_hits_of(const P& policy) {
  if constexpr (requires { policy.ghost_hits(); }) return policy.ghost_hits();
  return 0;
}

}  // namespace dbrepro::cache
