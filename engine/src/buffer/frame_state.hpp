#pragma once
// The state of a frame of the page cache's atomic map (E5) in one 64-bit word, as in
// vmcache and LeanStore: the low 8 bits are the latch (0 unlatched, 1..kMaxShared
// readers, kExclusive a writer, kEvicting the pool itself, reusing the frame);
// the upper 56 bits a version, bumped whenever an exclusive holder lets go.
// A fixer latches with one compare-and-swap and no other lock; a reader
// that raced with an eviction notices it because the frame's page changed.
#include <atomic>
#include <thread>

#include "common/types.hpp"

namespace dbrepro::frame_state {

inline constexpr u64 kStateMask = 0xFF;
inline constexpr u64 kMaxShared = 250;
inline constexpr u64 kExclusive = 254;
inline constexpr u64 kEvicting = 255;

inline u64 state(u64 w) { return w & kStateMask; }
inline u64 version(u64 w) { return w >> 8; }
inline u64 unlatched_next_version(u64 w) { return (version(w) + 1) << 8; }

inline bool try_shared(std::atomic<u64>& word) {
  u64 w = word.load(std::memory_order_relaxed);
  return state(w) < kMaxShared && word.compare_exchange_weak(w, w + 1, std::memory_order_acquire);
}
inline bool try_exclusive(std::atomic<u64>& word, u64 to = kExclusive) {
  u64 w = word.load(std::memory_order_relaxed);
  return state(w) == 0 && word.compare_exchange_strong(w, w | to, std::memory_order_acquire);
}
inline void release_shared(std::atomic<u64>& word) { word.fetch_sub(1, std::memory_order_release); }
inline void release_exclusive(std::atomic<u64>& word) {
  word.store(unlatched_next_version(word.load(std::memory_order_relaxed)), std::memory_order_release);
}
// From kEvicting (a frame just filled by the pool) to the fixer's mode.
inline void hand_over(std::atomic<u64>& word, bool exclusive) {
  const u64 next = unlatched_next_version(word.load(std::memory_order_relaxed));
  word.store(next | (exclusive ? kExclusive : 1), std::memory_order_release);
}

// A frame the fixer holds exclusively (just filled) to one shared latch.
inline void exclusive_to_shared(std::atomic<u64>& word) {
  word.store(unlatched_next_version(word.load(std::memory_order_relaxed)) | 1, std::memory_order_release);
}

inline void backoff() { std::this_thread::yield(); }

}  // namespace dbrepro::frame_state
