#pragma once
// A segment mutex whose holding is measured (issue 16: what explains whether
// segments help): the time from each acquisition to its release, and the
// holds long enough that the holder must have lost its CPU inside the
// critical section. A key-cache critical section is a hash lookup and a list
// move, well under a microsecond (the pread of a miss runs outside it), so a
// hold of kLongHoldNs or more means the holder was preempted or descheduled
// while everyone needing that segment waited: lock-holder preemption, the
// thing segments make less likely to stall the others.
// The counters change only while the mutex is held, so they are plain
// integers; read them under the mutex. Costs two clock reads per acquisition.
#include <chrono>

#include "common/types.hpp"

namespace dbrepro::keycache {

struct HoldStats {
  u64 acquisitions = 0;
  u64 held_ns = 0;     // summed time from acquisition to release
  u64 long_holds = 0;  // holds of kLongHoldNs or more (the holder lost its CPU)

  HoldStats& operator+=(const HoldStats& o) {
    acquisitions += o.acquisitions;
    held_ns += o.held_ns;
    long_holds += o.long_holds;
    return *this;
  }
};

template <class Latch>
class TimedLatch {
 public:
  static constexpr const char* kName = Latch::kName;
  static constexpr u64 kLongHoldNs = 100'000;

  void lock() {
    latch_.lock();
    since_ = now();
  }
  bool try_lock() {
    if (!latch_.try_lock()) return false;
    since_ = now();
    return true;
  }
  void unlock() {
    const u64 held = now() - since_;
    ++stats_.acquisitions;
    stats_.held_ns += held;
    stats_.long_holds += held >= kLongHoldNs ? 1 : 0;
    latch_.unlock();
  }

  HoldStats stats() {  // takes the mutex (and counts that hold too)
    lock();
    const HoldStats s = stats_;
    unlock();
    return s;
  }
  void reset() {
    lock();
    stats_ = {};
    latch_.unlock();  // the reset's own hold is not counted
  }

 private:
  static u64 now() {
    return static_cast<u64>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
            .count());
  }
  Latch latch_;
  u64 since_ = 0;
  HoldStats stats_;
};

}  // namespace dbrepro::keycache
