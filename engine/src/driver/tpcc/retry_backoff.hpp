#pragma once
// The pause of a deadlock victim before it runs its transaction again.
// Restarting at once livelocks: lock grants are not first-come-first-served,
// so the victim takes its first locks again before the transaction it
// deadlocked with has woken up from its wait, and the two deadlock again,
// thousands of times a second, each round leaving the victim's created
// records behind as dead heap space (a disk-pool run at 10% grew its
// database threefold). A random pause whose bound doubles with each retry
// of the same transaction lets the survivor finish first; random, so that
// two victims retrying in step do not meet again.
#include <algorithm>
#include <chrono>
#include <thread>

#include "common/random.hpp"

namespace dbrepro::tpcc {

class RetryBackoff {
 public:
  explicit RetryBackoff(u64 seed) : rng_(seed) {}

  // attempt: 1 for the first retry of a transaction, 2 for the second, ...
  void pause(u32 attempt) {
    const i64 bound = kFirstBoundMicros << std::min(attempt - 1, kMaxDoublings);
    std::this_thread::sleep_for(std::chrono::microseconds(rng_.uniform(1, bound)));
  }

 private:
  static constexpr i64 kFirstBoundMicros = 50;
  static constexpr u32 kMaxDoublings = 8;  // at most 12.8 ms, well below the lock timeout
  Random rng_;  // not the terminal's transaction stream: its inputs stay the same
};

}  // namespace dbrepro::tpcc
