#pragma once
// Solaris's time-sharing class emulated on Linux (E4, issue 43): the decision
// core (sched/ts_dispatcher.hpp) driven by a dispatcher thread over real
// session threads. The mechanism:
//   - every session thread runs SCHED_FIFO at the real-time priority of its TS
//     level (ts_rt_priority: level 0..59 -> 2..61), so Linux always runs the
//     highest-level runnable thread, first come first served within a level,
//     and a thread preempted by a higher level stays at the front of its own;
//   - one dispatcher thread, SCHED_FIFO at kTsDispatcherPriority (above every
//     session), wakes every clock tick (Solaris's 10 ms, times the run's
//     scale), reads each session's own CPU clock (pthread_getcpuclockid),
//     charges the core with what it ran and applies the core's moves: an
//     expired quantum puts the thread at the back of its ts_tqexp level (Linux
//     puts a thread whose priority is lowered, or set unchanged, at the
//     front, so it is parked one priority below its new level first and
//     raised: a raise goes to the back); at the once-a-second update a thread
//     counts as waiting when its state in /proc is runnable and its CPU clock
//     did not move during the last tick;
//   - the dispatcher is a thread, where Solaris's clock is an interrupt: each
//     tick preempts the session running on the CPU it wakes on, an
//     involuntary switch the kernel counts for that session (and, for a
//     memory-bound session holding a latch then, a holder preemption); it
//     counts those ticks (preemptions) so switch rates can leave them out;
//   - past `limit_ns` the dispatcher gives every session back to SCHED_OTHER
//     (the run is marked timed out): real-time sessions cannot hold the
//     machine longer than that;
//   - a session leaves the class only when the dispatcher lets it go: after
//     its last work it says it is done (ts_session_done) and waits, blocked,
//     until the dispatcher has seen that and will never touch it again
//     (ts_release; every session at the dispatcher's end). Solaris does the
//     same under the thread lock: ts_exitclass takes the thread off the class
//     list that ts_update walks, and ts_tick runs under that lock, so the clock
//     never acts on a thread that is gone. Here it is needed because glibc's
//     pthread_setschedparam reads the thread's kernel id twice, once to check
//     it and once for sched_setscheduler: a thread that exits in between has
//     id 0, and sched_setscheduler(0, ...) sets the caller -- the dispatcher
//     then drops from kTsDispatcherPriority to a session's level and stops
//     dispatching (shown on this machine by a program that sets threads as
//     they exit: the caller's own priority changed once in ~100,000 calls).
// Not emulated here: sleep and wake (ts_slpret). The mechanism sees a thread's
// CPU clock, not its sleeps (a latch nap of the memory-bound sessions); a
// Linux thread that wakes rejoins the back of its own level, where Solaris
// would put it at ts_slpret (50-59). The core has the rule (tested); the
// mechanism does not apply it, and says so in every record (ts_slpret_applied).
#include <pthread.h>

#include <atomic>
#include <span>
#include <vector>

#include "common/types.hpp"
#include "sched/ts_table.hpp"

namespace dbrepro::sched {

inline constexpr int kTsParkPriority = 1;        // one below level 0 (level 0's park)
inline constexpr int kTsDispatcherPriority = 90;  // above every level (61), below the kernel's own (99)
inline constexpr int ts_rt_priority(u32 level) { return 2 + static_cast<int>(level); }

// A session thread as the dispatcher sees it.
struct TsSessionThread {
  pthread_t thread{};
  std::atomic<int> tid{0};          // the thread's kernel id, set by the thread itself (for /proc)
  std::atomic<bool> finished{false};  // set by the thread when its work is done
  std::atomic<bool> released{false};  // set by the dispatcher: it will not touch the thread again
  int cpu = -1;                       // the CPU it is pinned to (-1: free on the run's CPUs)
};

// The session's last act under the class: say it is done, then wait (blocked,
// no CPU) until the dispatcher releases it, so that its thread outlives every
// call the dispatcher makes on it.
inline void ts_session_done(TsSessionThread& s) {
  s.finished.store(true, std::memory_order_release);
  while (!s.released.load(std::memory_order_acquire)) s.released.wait(false, std::memory_order_acquire);
}

// The dispatcher's (or, where none runs, the driver's) word that it is done with the thread.
inline void ts_release(TsSessionThread& s) {
  s.released.store(true, std::memory_order_release);
  s.released.notify_all();
}

struct TsThreadCounters {
  u64 expiries = 0;
  u64 boosts = 0;
  u32 final_level = 0;
};

// What the dispatcher runs (issue 55: the class and table as data): a reading's
// table and its times, the level every session starts at, when the first
// once-a-second update falls after the dispatcher's start (the update's phase),
// and the time limit.
struct TsClassRun {
  const TsTable* table = &kDefaultTsTable;
  TsTimes times;
  u8 entry_level = kTsEntryLevel;
  i64 first_update_ns = -1;  // -1: one whole update period
  i64 limit_ns = 0;
};

struct TsDispatcherStats {
  double cpu_seconds = 0;   // the dispatcher thread's own CPU time
  double wall_seconds = 0;  // from its start to its end
  u64 ticks = 0;
  u64 late_ticks = 0;       // ticks that woke a whole tick or more late
  u64 updates = 0;
  u64 priority_sets = 0;    // pthread_setschedparam calls it made
  u64 proc_reads = 0;       // /proc state reads at the updates
  // Ticks that woke on a CPU where a session ran during the tick: each preempted that CPU's running
  // session for the tick's work, one involuntary switch the kernel charges to the session
  // (Solaris's clock is an interrupt, not a switch), so switch rates leave these out.
  u64 preemptions = 0;
  bool timed_out = false;
  // The dispatcher's own SCHED_FIFO priority when it returned (0: not SCHED_FIFO): kTsDispatcherPriority
  // unless something lowered it while it ran (what the release handshake above rules out for its own calls).
  int priority_end = 0;
  std::vector<TsThreadCounters> threads;
};

// The dispatcher's body: run on a SCHED_FIFO thread at kTsDispatcherPriority
// once every session thread exists; returns when all have finished (or at the
// limit), having released every session (ts_release). Each session starts at
// run.entry_level (its thread created at that level's priority).
TsDispatcherStats run_ts_dispatcher(std::span<TsSessionThread> sessions, const TsClassRun& run);

}  // namespace dbrepro::sched
