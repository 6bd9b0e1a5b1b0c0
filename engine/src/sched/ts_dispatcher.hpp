#pragma once
// The decisions of Solaris's time-sharing (TS) dispatcher over a fixed set of
// threads, with no clock or thread of its own: the caller says how much CPU
// time each thread ran (charge), when one sleeps and wakes, and which are
// waiting on the run queue at the once-a-second update; the core answers with
// the level moves to apply (TsMove). Time comes from the Clock it is given
// (the real one in the Linux mechanism, sched/ts_linux.hpp; a fake one in the
// tests), and only decides when the update is due.
//
// What it mirrors of Solaris's TS class (ts_tick, ts_update, ts_wakeup in
// usr/src/uts/common/disp/ts.c, as ts_dptbl(4) describes them):
//   - a thread's quantum is its level's ts_quantum of CPU time; when it has
//     used it, it drops to ts_tqexp, gets that level's quantum, its dispwait
//     is reset and it goes to the back of its new level;
//   - once a second every thread waiting on the run queue counts one second
//     more (dispwait); past its level's ts_maxwait it is raised to ts_lwait,
//     with that level's quantum, dispwait reset, at the back of the level;
//     a thread preempted by a higher level keeps its dispwait and the rest of
//     its quantum (it stays at the front of its level: SCHED_FIFO does that);
//   - a thread that wakes from sleep returns at its level's ts_slpret with a
//     fresh quantum and dispwait reset.
// The table is data (sched/ts_table.hpp's readings, issue 55): FX or RT at one
// priority is a table whose every level keeps its thread (kOnePriorityTable),
// which this core runs as round robin with quantum Q.
// What it leaves out: the interactive class (IA's boost of the window in
// focus), kernel-mode priorities (a thread holding a kernel resource runs at a
// SYS level, TSKPRI), user priorities and nice (ts_upri, ts_nice: every thread
// here has user priority 0, so its level is its ts_cpupri), ts_sleep_promote,
// schedctl's preemption control, and Solaris's per-CPU queues and their
// balancing (the caller decides which CPU a thread runs on).
#include <algorithm>
#include <optional>
#include <stdexcept>
#include <vector>

#include "common/types.hpp"
#include "sched/ts_table.hpp"

namespace dbrepro::sched {

enum class TsState : u8 { kRunnable, kSleeping, kFinished };

struct TsThread {
  u8 level = kTsEntryLevel;
  i64 timeleft_ns = 0;  // CPU time left of the current quantum
  u32 dispwait = 0;     // updates it spent waiting on the run queue since its last reset
  TsState state = TsState::kRunnable;
  u64 expiries = 0;     // quanta used up (moves to ts_tqexp)
  u64 boosts = 0;       // moves to ts_lwait at the update
  u64 wakes = 0;        // moves to ts_slpret
};

// A level change for the mechanism to apply: the thread goes to the back of
// level `to` (also when to == from: an expired quantum requeues it behind its peers).
struct TsMove {
  u32 thread;
  u8 from;
  u8 to;
};

template <class Clock>
class TsDispatcher {
 public:
  // The first update falls first_update_ns after now (the update's phase: a
  // whole period where none is given, as if the clock's second began now).
  TsDispatcher(const TsTable& table, const TsTimes& times, Clock& clock, u32 threads, u8 entry_level = kTsEntryLevel,
               i64 first_update_ns = -1)
      : table_(table),
        times_(times),
        clock_(clock),
        threads_(threads),
        next_update_(clock.now() + (first_update_ns < 0 ? times.update_ns : first_update_ns)) {
    if (entry_level >= kTsLevels) throw std::invalid_argument("TS entry level must be below 60");
    if (times.update_ns <= 0) throw std::invalid_argument("TS update period must be > 0");
    if (first_update_ns > times.update_ns) throw std::invalid_argument("TS first update must fall within a period");
    for (auto& t : threads_) {
      t.level = entry_level;
      t.timeleft_ns = times_.quantum_ns[entry_level];
    }
  }

  // `cpu_ns` of CPU time thread t ran since the last charge. Returns the move
  // when its quantum expired (the rest of the CPU time is not carried over).
  // A quantum counts as used when less than half a clock tick of it is left:
  // the caller charges once a tick, and Solaris's clock counts a quantum in
  // whole ticks (a thread found running at a tick is charged the whole tick),
  // so a thread that ran a tick less the dispatcher's own few microseconds is
  // not left a sliver that costs it a second tick.
  std::optional<TsMove> charge(u32 t, i64 cpu_ns) {
    TsThread& th = threads_.at(t);
    if (th.state == TsState::kFinished || cpu_ns <= 0) return std::nullopt;
    th.timeleft_ns -= cpu_ns;
    if (th.timeleft_ns > times_.tick_ns / 2) return std::nullopt;
    ++th.expiries;
    return move(t, table_[th.level].tqexp);
  }

  void sleep(u32 t) {
    TsThread& th = threads_.at(t);
    if (th.state == TsState::kRunnable) th.state = TsState::kSleeping;
  }

  // Thread t wakes: back at its level's ts_slpret.
  std::optional<TsMove> wake(u32 t) {
    TsThread& th = threads_.at(t);
    if (th.state != TsState::kSleeping) return std::nullopt;
    th.state = TsState::kRunnable;
    ++th.wakes;
    return move(t, table_[th.level].slpret);
  }

  void finish(u32 t) { threads_.at(t).state = TsState::kFinished; }

  bool update_due() const { return clock_.now() >= next_update_; }

  // The once-a-second update (call it when update_due()): waiting(t) says
  // whether runnable thread t is on the run queue rather than on a CPU.
  template <class Waiting>
  std::vector<TsMove> update(Waiting&& waiting) {
    next_update_ += times_.update_ns;
    ++updates_;
    std::vector<TsMove> moves;
    for (u32 t = 0; t < threads_.size(); ++t) {
      TsThread& th = threads_[t];
      if (th.state != TsState::kRunnable || !waiting(t)) continue;
      ++th.dispwait;
      if (static_cast<i64>(th.dispwait) <= table_[th.level].maxwait_s) continue;
      ++th.boosts;
      moves.push_back(move(t, table_[th.level].lwait));
    }
    return moves;
  }

  const TsThread& thread(u32 t) const { return threads_.at(t); }
  u32 size() const { return static_cast<u32>(threads_.size()); }
  u64 updates() const { return updates_; }
  i64 quantum_ns(u8 level) const { return times_.quantum_ns[level]; }

 private:
  TsMove move(u32 t, u8 to) {
    TsThread& th = threads_[t];
    const TsMove m{t, th.level, to};
    th.level = to;
    th.timeleft_ns = times_.quantum_ns[to];
    th.dispwait = 0;
    return m;
  }

  TsTable table_;
  TsTimes times_;
  Clock& clock_;
  std::vector<TsThread> threads_;
  i64 next_update_;
  u64 updates_ = 0;
};

}  // namespace dbrepro::sched
