#pragma once
// Taking a latch and learning what it cost: the one way the engine measures
// a wait (the page cache's partition latches, LRU's and 2Q's hit-path lock).
// An uncontended acquisition costs one try_lock and no clock read; the clock
// is read only when the latch was held, around the blocking acquire.
#include <chrono>

#include "common/types.hpp"

namespace dbrepro {

struct LatchWait {
  bool waited = false;  // the latch was held when we came
  u64 ns = 0;           // how long we waited for it (0 unless waited)
};

template <class Latch>
LatchWait lock_timed(Latch& latch) {
  if (latch.try_lock()) return {};
  const auto t0 = std::chrono::steady_clock::now();
  latch.lock();
  const auto waited = std::chrono::steady_clock::now() - t0;
  return {true, static_cast<u64>(std::chrono::duration_cast<std::chrono::nanoseconds>(waited).count())};
}

}  // namespace dbrepro
