#pragma once
// A latch that counts, per session, what the latch cost it and how often its
// holder lost the CPU while holding it: lock-holder preemption, the mechanism
// E4 measures (issue 32). Oracle's sessions took a cache-buffers-chains latch
// for every buffer they pinned and unpinned; a session switched out while it
// held one left every session needing that chain waiting until the scheduler
// gave the holder its CPU back, and the more sessions wait for a CPU, the
// longer that is. A longer quantum switches less often, so it is rarer.
//
// Per session (the LatchCounters the running session points this thread at,
// written only by that thread, never a shared cache line):
//   acquisitions, waits (the latch was held when we came) and the time waited
//   (latch/timed_acquire.hpp: one try_lock, the clock only when we waited);
//   holder_preemptions: holds in which the holder's involuntary context-switch
//   count (getrusage RUSAGE_THREAD, ru_nivcsw) grew.
// Why not getrusage at every acquire and release: it is a system call
// (~0.2-0.5 us), four per page scanned, which would make the page's work
// mostly syscalls and lengthen the very critical section whose preemption is
// measured. Instead the holder reads the clock (vDSO, ~20 ns) when it takes
// and releases the latch, and reads ru_nivcsw only
//   - when it takes a latch kGapNs or more after its previous latch operation
//     (it may have been switched out in between: the count it holds is
//     refreshed, so it is exact at the acquisition), and
//   - when it releases a latch held kGapNs or more (compared with that count).
// A session takes a latch every microsecond or so while it runs, so both
// happen about once per switch. A preemption shorter than kGapNs in a hold
// is not counted: it cannot be a round-robin turn of another session (one
// tick, 4 ms, at least) and costs waiters less than kGapNs. A hold that is
// long for another reason (a page fault, a spin) without an involuntary
// switch is not counted either: that is what ru_nivcsw tells apart.
#include <sys/resource.h>

#include <chrono>

#include "common/types.hpp"
#include "latch/timed_acquire.hpp"

namespace dbrepro {

struct LatchCounters {
  u64 acquisitions = 0;
  u64 waits = 0;                // acquisitions that found the latch held
  u64 wait_ns = 0;              // time spent waiting for it
  u64 holder_preemptions = 0;   // holds in which this session was switched out involuntarily

  LatchCounters& operator+=(const LatchCounters& o) {
    acquisitions += o.acquisitions;
    waits += o.waits;
    wait_ns += o.wait_ns;
    holder_preemptions += o.holder_preemptions;
    return *this;
  }
};

namespace holder_preemption {

inline constexpr i64 kGapNs = 20'000;

// What this thread knows: its last latch operation's time and its involuntary
// switches as last read.
struct ThreadView {
  i64 last_op_ns = -kGapNs - 1;
  u64 nivcsw = 0;
  LatchCounters spare;              // counts made with no session attached (loading a table)
  LatchCounters* counters = &spare;  // the running session's
};
inline ThreadView& view() {
  thread_local ThreadView v;
  return v;
}
inline i64 now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
inline u64 involuntary_switches() {
  rusage usage{};
  ::getrusage(RUSAGE_THREAD, &usage);
  return static_cast<u64>(usage.ru_nivcsw);
}

}  // namespace holder_preemption

// The session running on this thread counts into `counters` (nullptr: none).
// Fibers call it whenever they may have been switched in (after each check).
inline void attach_latch_counters(LatchCounters* counters) {
  auto& v = holder_preemption::view();
  v.counters = counters ? counters : &v.spare;
}

template <class Latch>
class HolderPreemptionLatch {
 public:
  static constexpr const char* kName = Latch::kName;

  void lock() {
    using namespace holder_preemption;
    ThreadView& v = view();
    i64 t = now_ns();
    if (t - v.last_op_ns >= kGapNs) v.nivcsw = involuntary_switches();  // may have been switched out since
    const LatchWait w = lock_timed(latch_);
    LatchCounters& c = *v.counters;
    ++c.acquisitions;
    if (w.waited) {
      ++c.waits;
      c.wait_ns += w.ns;
      t += static_cast<i64>(w.ns);
      if (w.ns >= static_cast<u64>(kGapNs)) v.nivcsw = involuntary_switches();  // switched out while waiting?
    }
    acquired_ns_ = t;
  }
  bool try_lock() {
    using namespace holder_preemption;
    ThreadView& v = view();
    const i64 t = now_ns();
    if (t - v.last_op_ns >= kGapNs) v.nivcsw = involuntary_switches();
    if (!latch_.try_lock()) return false;
    ++v.counters->acquisitions;
    acquired_ns_ = t;
    return true;
  }
  void unlock() {
    using namespace holder_preemption;
    ThreadView& v = view();
    const i64 t = now_ns();
    if (t - acquired_ns_ >= kGapNs) {
      const u64 n = involuntary_switches();
      if (n != v.nivcsw) ++v.counters->holder_preemptions;
      v.nivcsw = n;
    }
    v.last_op_ns = t;
    latch_.unlock();
  }

 private:
  Latch latch_;
  i64 acquired_ns_ = 0;  // the holder's, written and read under the latch
};

}  // namespace dbrepro
