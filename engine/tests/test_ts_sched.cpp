// Solaris's TS dispatcher (sched/ts_dispatcher.hpp) against a schedule worked
// by hand, on a fake clock; and its Linux mechanism (sched/ts_linux.hpp) on
// real threads where SCHED_FIFO is permitted.
#include <gtest/gtest.h>
#include <pthread.h>
#include <sched.h>

#include <array>
#include <atomic>
#include <chrono>
#include <deque>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "driver/quantum/run.hpp"
#include "sched/ts_dispatcher.hpp"
#include "sched/ts_linux.hpp"
#include "sched/ts_table.hpp"

namespace dbrepro::sched {
namespace {

constexpr i64 kMs = 1'000'000;

struct ManualClock {
  i64 t = 0;
  i64 now() const { return t; }
};

TEST(TsTable, DefaultTableAsTsDptbl4PrintsIt) {
  // Spot rows of `dispadmin -c TS -g`: level: quantum tqexp slpret maxwait lwait.
  const auto row = [](u32 l) {
    const TsLevel& r = kDefaultTsTable[l];
    return std::array<i32, 5>{r.quantum_ms, r.tqexp, r.slpret, r.maxwait_s, r.lwait};
  };
  EXPECT_EQ(row(0), (std::array<i32, 5>{200, 0, 50, 0, 50}));
  EXPECT_EQ(row(19), (std::array<i32, 5>{160, 9, 51, 0, 51}));
  EXPECT_EQ(row(29), (std::array<i32, 5>{120, 19, 52, 0, 52}));
  EXPECT_EQ(row(35), (std::array<i32, 5>{80, 25, 54, 0, 54}));
  EXPECT_EQ(row(45), (std::array<i32, 5>{40, 35, 56, 0, 56}));
  EXPECT_EQ(row(48), (std::array<i32, 5>{40, 38, 58, 0, 58}));
  EXPECT_EQ(row(49), (std::array<i32, 5>{40, 39, 58, 0, 59}));
  EXPECT_EQ(row(59), (std::array<i32, 5>{20, 49, 59, 32000, 59}));
  for (u32 l = 0; l < kTsLevels; ++l) {
    EXPECT_LE(kDefaultTsTable[l].tqexp, l) << "level " << l;    // an expired quantum never raises
    EXPECT_GE(kDefaultTsTable[l].lwait, l) << "level " << l;    // a long wait never lowers
    EXPECT_LT(kDefaultTsTable[l].slpret, kTsLevels) << "level " << l;
  }
}

TEST(TsTable, QInEveryLevelAndOneScaleForEveryTime) {
  const TsTimes own = ts_times(kDefaultTsTable, 0, 1.0);
  EXPECT_EQ(own.quantum_ns[0], 200 * kMs);
  EXPECT_EQ(own.quantum_ns[59], 20 * kMs);
  EXPECT_EQ(own.update_ns, 1000 * kMs);
  EXPECT_EQ(own.tick_ns, 10 * kMs);
  const TsTimes scaled = ts_times(kDefaultTsTable, 400, 0.05);
  for (i64 q : scaled.quantum_ns) EXPECT_EQ(q, 20 * kMs);
  EXPECT_EQ(scaled.update_ns, 50 * kMs);
  EXPECT_EQ(scaled.tick_ns, kMs / 2);
  EXPECT_THROW(ts_times(kDefaultTsTable, 400, 0), std::invalid_argument);
}

// Issue 55's readings: Q goes where each reading puts it; the rest of its table is its own.
TEST(TsTable, EachReadingPutsQWhereItSays) {
  const TsTimes all = ts_times(ts_reading("all"), 400, 1.0);
  for (i64 q : all.quantum_ns) EXPECT_EQ(q, 400 * kMs);
  const TsTimes low = ts_times(ts_reading("low"), 400, 1.0);
  for (u32 l = 0; l < 10; ++l) EXPECT_EQ(low.quantum_ns[l], 400 * kMs) << l;
  EXPECT_EQ(low.quantum_ns[10], 160 * kMs);  // the shipped table from level 10 up
  EXPECT_EQ(low.quantum_ns[59], 20 * kMs);
  for (const char* name : {"fx", "rt"}) {
    const TsReading& r = ts_reading(name);
    EXPECT_EQ(r.table, &kOnePriorityTable) << name;
    for (i64 q : ts_times(r, 20, 1.0).quantum_ns) EXPECT_EQ(q, 20 * kMs) << name;
  }
  EXPECT_EQ(ts_reading("rt").queues, TsQueues::kGlobal);
  EXPECT_EQ(ts_reading("fx").queues, TsQueues::kPerCpu);
  for (u32 l = 0; l < kTsLevels; ++l) {  // one priority: a thread stays where it is
    const TsLevel& row = kOnePriorityTable[l];
    EXPECT_TRUE(row.tqexp == l && row.slpret == l && row.lwait == l && row.maxwait_s == kTsNeverRaised) << l;
  }
  EXPECT_THROW(ts_reading("ia"), std::invalid_argument);
}

// One CPU as Solaris (and SCHED_FIFO) runs it: the first thread of the highest
// non-empty level runs; a move puts the thread at the back of its new level; a
// preempted thread keeps its place at the front of its own.
class OneCpu {
 public:
  OneCpu(u32 threads, double quantum_ms, const TsReading& reading = ts_reading("all"))
      : core_(*reading.table, ts_times(reading, quantum_ms, 1.0), clock_, threads) {
    for (u32 t = 0; t < threads; ++t) queues_[kTsEntryLevel].push_back(t);
  }
  int running() const {
    for (int l = kTsLevels - 1; l >= 0; --l)
      if (!queues_[l].empty()) return static_cast<int>(queues_[l].front());
    return -1;
  }
  // Advance the clock by 10 ms ticks to `until_ms`, charging the running
  // thread and running the update when it is due.
  void run_to(i64 until_ms) {
    while (clock_.t < until_ms * kMs) {
      clock_.t += 10 * kMs;
      const int r = running();
      if (r >= 0)
        if (const auto m = core_.charge(static_cast<u32>(r), 10 * kMs)) apply(*m);
      if (core_.update_due())
        for (const TsMove& m : core_.update([&](u32 t) { return static_cast<int>(t) != running() && queued(t); }))
          apply(m);
    }
  }
  void sleep(u32 t) {
    remove(t);
    core_.sleep(t);
  }
  void wake(u32 t) {
    const auto m = core_.wake(t);
    ASSERT_TRUE(m.has_value());
    queues_[m->to].push_back(t);
  }
  const TsThread& thread(u32 t) const { return core_.thread(t); }
  TsDispatcher<ManualClock>& core() { return core_; }

 private:
  void apply(const TsMove& m) {
    remove(m.thread);
    queues_[m.to].push_back(m.thread);
  }
  void remove(u32 t) {
    for (auto& q : queues_) std::erase(q, t);
  }
  bool queued(u32 t) const {
    for (const auto& q : queues_)
      for (u32 x : q)
        if (x == t) return true;
    return false;
  }
  ManualClock clock_;
  TsDispatcher<ManualClock> core_;
  std::array<std::deque<u32>, kTsLevels> queues_;
};

// Three CPU-bound threads A, B, C enter at level 29 with Q = 300 ms in every
// level. Worked by hand:
//   0-300    A runs at 29; expires -> tqexp(29) = 19
//   300-600  B runs at 29; -> 19.   600-900: C at 29; -> 19
//   900-1000 A runs at 19 (its new 300 ms quantum)
//   1000     update: B and C waited (dispwait 1 > maxwait 0) -> lwait(19) = 51;
//            A was running: not counted, stays at 19 with 200 ms left
//   1000-1300 B at 51; -> tqexp(51) = 41.  1300-1600: C at 51; -> 41
//   1600-1900 B at 41; -> 31.  1900-2000: C at 41
//   2000     update: A waited since 1000 -> lwait(19) = 51; B waited since
//            1900 -> lwait(31) = 53; C was running: stays at 41
TEST(TsDispatcher, HandWorkedScheduleOfThreeCpuBoundThreads) {
  constexpr u32 A = 0, B = 1, C = 2;
  OneCpu cpu(3, 300);
  cpu.run_to(300);
  EXPECT_EQ(cpu.thread(A).level, 19);
  EXPECT_EQ(cpu.thread(A).expiries, 1u);
  EXPECT_EQ(cpu.running(), static_cast<int>(B));
  cpu.run_to(900);
  for (u32 t : {A, B, C}) EXPECT_EQ(cpu.thread(t).level, 19) << t;
  EXPECT_EQ(cpu.running(), static_cast<int>(A));
  cpu.run_to(1000);
  EXPECT_EQ(cpu.core().updates(), 1u);
  EXPECT_EQ(cpu.thread(A).level, 19);
  EXPECT_EQ(cpu.thread(A).boosts, 0u);
  EXPECT_EQ(cpu.thread(A).timeleft_ns, 200 * kMs);
  EXPECT_EQ(cpu.thread(B).level, 51);
  EXPECT_EQ(cpu.thread(C).level, 51);
  EXPECT_EQ(cpu.thread(B).boosts, 1u);
  EXPECT_EQ(cpu.thread(C).boosts, 1u);
  EXPECT_EQ(cpu.running(), static_cast<int>(B));  // above A, which was preempted
  cpu.run_to(1600);
  EXPECT_EQ(cpu.thread(B).level, 41);
  EXPECT_EQ(cpu.thread(C).level, 41);
  cpu.run_to(1900);
  EXPECT_EQ(cpu.thread(B).level, 31);
  EXPECT_EQ(cpu.running(), static_cast<int>(C));
  cpu.run_to(2000);
  EXPECT_EQ(cpu.core().updates(), 2u);
  EXPECT_EQ(cpu.thread(A).level, 51);
  EXPECT_EQ(cpu.thread(B).level, 53);
  EXPECT_EQ(cpu.thread(C).level, 41);
  EXPECT_EQ(cpu.thread(C).boosts, 1u);
  EXPECT_EQ(cpu.thread(A).expiries, 1u);
  EXPECT_EQ(cpu.thread(B).expiries, 3u);
  EXPECT_EQ(cpu.thread(C).expiries, 2u);
  EXPECT_EQ(cpu.running(), static_cast<int>(B));  // 53 above A's 51
}

// A thread that sleeps is not raised at the update however long it sleeps;
// when it wakes it returns at its level's ts_slpret with a fresh quantum.
TEST(TsDispatcher, SleeperIsNotRaisedAndWakesAtSlpret) {
  OneCpu cpu(2, 300);
  cpu.run_to(300);   // thread 0: 29 -> 19
  cpu.sleep(0);
  cpu.run_to(2000);  // two updates: thread 1 runs alone, thread 0 sleeps
  EXPECT_EQ(cpu.thread(0).level, 19);
  EXPECT_EQ(cpu.thread(0).boosts, 0u);
  EXPECT_EQ(cpu.thread(0).dispwait, 0u);
  cpu.wake(0);
  EXPECT_EQ(cpu.thread(0).level, kDefaultTsTable[19].slpret);  // 51
  EXPECT_EQ(cpu.thread(0).wakes, 1u);
  EXPECT_EQ(cpu.thread(0).timeleft_ns, 300 * kMs);
  EXPECT_EQ(cpu.running(), 0);  // 51 above thread 1, which sank to 0
  EXPECT_EQ(cpu.thread(1).level, 0);
}

// FX (or RT) at one priority through the same core: three threads take turns of
// Q at their one level, an expired quantum requeues at the back, and the update
// never raises the waiting.
TEST(TsDispatcher, OnePriorityTableIsRoundRobin) {
  OneCpu cpu(3, 300, ts_reading("fx"));
  cpu.run_to(300);
  EXPECT_EQ(cpu.running(), 1);
  cpu.run_to(900);
  EXPECT_EQ(cpu.running(), 0);  // A, B, C, then A again
  cpu.run_to(3000);             // three updates
  for (u32 t = 0; t < 3; ++t) {
    EXPECT_EQ(cpu.thread(t).level, kTsEntryLevel) << t;
    EXPECT_EQ(cpu.thread(t).boosts, 0u) << t;
    EXPECT_EQ(cpu.thread(t).expiries, 3u + (t == 0)) << t;  // 10 turns of 300 ms: A had four
  }
  EXPECT_EQ(cpu.core().updates(), 3u);
}

// The update's phase: the first update falls where it is told, the next a whole period later.
TEST(TsDispatcher, FirstUpdateFallsAtItsPhase) {
  ManualClock clock;
  TsDispatcher<ManualClock> core(kDefaultTsTable, ts_times(kDefaultTsTable, 0, 1.0), clock, 1, kTsEntryLevel,
                                 250 * kMs);
  clock.t = 249 * kMs;
  EXPECT_FALSE(core.update_due());
  clock.t = 250 * kMs;
  ASSERT_TRUE(core.update_due());
  (void)core.update([](u32) { return false; });
  clock.t = 1249 * kMs;
  EXPECT_FALSE(core.update_due());
  clock.t = 1250 * kMs;
  EXPECT_TRUE(core.update_due());
  EXPECT_THROW(TsDispatcher<ManualClock>(kDefaultTsTable, ts_times(kDefaultTsTable, 0, 1.0), clock, 1, kTsEntryLevel,
                                         1001 * kMs),
               std::invalid_argument);
}

// Level 59's ts_maxwait is 32000 s: a thread waiting there counts its
// seconds but is not moved.
TEST(TsDispatcher, WaitBelowMaxwaitOnlyCounts) {
  ManualClock clock;
  TsDispatcher<ManualClock> core(kDefaultTsTable, ts_times(kDefaultTsTable, 0, 1.0), clock, 1, 59);
  for (int s = 1; s <= 3; ++s) {
    clock.t = s * 1000 * kMs;
    ASSERT_TRUE(core.update_due());
    EXPECT_TRUE(core.update([](u32) { return true; }).empty());
  }
  EXPECT_EQ(core.thread(0).dispwait, 3u);
  EXPECT_EQ(core.thread(0).level, 59);
  EXPECT_FALSE(core.update_due());
}

// The Linux mechanism on real threads: SCHED_FIFO sessions and the dispatcher
// above them. Needs root or CAP_SYS_NICE: skipped with the reason where refused.
bool fifo_permitted(std::string& why) {
  sched_param p{};
  p.sched_priority = 1;
  pthread_attr_t attr;
  ::pthread_attr_init(&attr);
  ::pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
  ::pthread_attr_setschedpolicy(&attr, SCHED_FIFO);
  ::pthread_attr_setschedparam(&attr, &p);
  pthread_t t;
  const int code = ::pthread_create(&t, &attr, [](void*) -> void* { return nullptr; }, nullptr);
  ::pthread_attr_destroy(&attr);
  if (code != 0) {
    why = "SCHED_FIFO threads refused here (needs root or CAP_SYS_NICE): " + std::to_string(code);
    return false;
  }
  ::pthread_join(t, nullptr);
  return true;
}

// Three CPU-bound sessions on one CPU, Q = 200 ms before the scale.
SessionsConfig three_sessions(u64 iterations) {
  SessionsConfig config;
  config.cpus = 1;
  config.sessions_per_cpu = 3;
  config.quantum_ms = 200;
  config.cpu_iterations = iterations;
  return config;
}

TEST(TsLinux, SessionsFinishUnderTheEmulatedClass) {
  std::string why;
  if (!fifo_permitted(why)) GTEST_SKIP() << why;
  // ~50 ms each: every time below is scaled by 0.05
  const SessionsResult r = run_ts_scheduler(three_sessions(10'000'000), TsSettings{0.05, 30});
  EXPECT_EQ(r.scheduler, "os_ts");
  EXPECT_FALSE(r.dispatcher.timed_out);
  EXPECT_GT(r.dispatcher.ticks, 0u);
  ASSERT_EQ(r.sessions.size(), 3u);
  u64 expiries = 0;
  for (const auto& s : r.sessions) {
    EXPECT_GT(s.cpu_seconds, 0);
    EXPECT_DOUBLE_EQ(s.effective_quantum_ms, 10.0);  // 200 ms x 0.05
    expiries += s.ts_expiries;
  }
  EXPECT_GT(expiries, 0u);  // three sessions of ~50 ms under 10 ms quanta
  EXPECT_GT(r.dispatcher.cpu_seconds, 0);
  EXPECT_EQ(r.dispatcher.priority_end, kTsDispatcherPriority);  // no session's exit lowered it
}

// The article's start (issue 55): sessions start one after another, each at its
// offset (the gap times the scale), at the level it is given, the update's phase
// drawn for the run; a session's wall time still counts from the common start.
TEST(TsLinux, StaggeredStartsAndADrawnUpdatePhase) {
  std::string why;
  if (!fifo_permitted(why)) GTEST_SKIP() << why;
  TsSettings ts{0.05, 30};
  ts.reading = "fx";
  ts.entry_level = kTsWokenLevel;
  ts.update_phase = 0;     // drawn
  ts.start_gap_ms = 400;   // x 0.05: 20 ms apart
  const SessionsResult r = run_ts_scheduler(three_sessions(2'000'000), ts);
  ASSERT_EQ(r.sessions.size(), 3u);
  for (u32 k = 0; k < 3; ++k) {
    EXPECT_DOUBLE_EQ(r.sessions[k].start_seconds, 0.02 * k) << k;
    EXPECT_GT(r.sessions[k].wall_seconds, r.sessions[k].start_seconds) << k;
    EXPECT_EQ(r.sessions[k].ts_final_level, kTsWokenLevel) << k;  // one priority: where it started
    EXPECT_EQ(r.sessions[k].ts_boosts, 0u) << k;
  }
  EXPECT_GT(r.dispatcher.update_phase, 0.0);
  EXPECT_LE(r.dispatcher.update_phase, 1.0);
  EXPECT_FALSE(r.dispatcher.timed_out);
}

// A session that said it is done waits until the dispatcher lets it go: its thread outlives every call the
// dispatcher makes on it (glibc's pthread_setschedparam on a thread exiting meanwhile sets the caller).
TEST(TsLinux, ADoneSessionWaitsForItsRelease) {
  TsSessionThread s;
  std::atomic<bool> returned{false};
  std::thread session([&] {
    ts_session_done(s);
    returned = true;
  });
  while (!s.finished.load()) std::this_thread::yield();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_FALSE(returned.load());
  ts_release(s);
  session.join();
  EXPECT_TRUE(returned.load());
}

// Sessions that finish at once, end while the dispatcher requeues them at every tick (a quantum of one
// tick), or are still working at its time limit: the dispatcher releases every one (none waits forever),
// each once it is done or at its end, and keeps its own priority. A session it forgot would hang here:
// every wait is bounded by the test's own deadline.
TEST(TsLinux, TheDispatcherReleasesEverySessionAndKeepsItsPriority) {
  std::string why;
  if (!fifo_permitted(why)) GTEST_SKIP() << why;
  for (const double limit_s : {30.0, 0.02}) {  // the sessions end first; the limit comes first
    constexpr u32 kSessions = 4;
    std::vector<TsSessionThread> ts(kSessions);
    std::atomic<bool> go{false}, stop{false};
    std::vector<std::promise<void>> exited(kSessions);
    std::vector<std::future<void>> out;
    for (auto& e : exited) out.push_back(e.get_future());
    std::vector<std::thread> threads;
    for (u32 i = 0; i < kSessions; ++i) {
      threads.emplace_back([&, i] {
        ts[i].tid = static_cast<int>(::gettid());
        while (!go.load()) std::this_thread::yield();
        // Session 0 ends at once, the others after 60 ms each (past the 20 ms limit).
        const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(60 * i);
        while (std::chrono::steady_clock::now() < end && !stop.load()) {
        }
        ts_session_done(ts[i]);
        exited[i].set_value();
      });
      ts[i].thread = threads.back().native_handle();
    }
    // This thread is the dispatcher, above the sessions, which it sets to their levels' priorities.
    sched_param p{};
    p.sched_priority = kTsDispatcherPriority;
    const int set = ::pthread_setschedparam(::pthread_self(), SCHED_FIFO, &p);
    go = true;
    if (set != 0) {  // no dispatcher: let the sessions end before failing
      stop = true;
      for (auto& s : ts) ts_release(s);
      for (auto& t : threads) t.join();
      FAIL() << "SCHED_FIFO " << kTsDispatcherPriority << " refused for the dispatcher: " << set;
    }
    TsClassRun run;
    run.times = ts_times(kDefaultTsTable, 1.0, 0.01);  // quantum = tick = 0.1 ms: requeued each tick
    run.limit_ns = static_cast<i64>(limit_s * 1e9);
    const TsDispatcherStats stats = run_ts_dispatcher(ts, run);
    p.sched_priority = 0;
    ::pthread_setschedparam(::pthread_self(), SCHED_OTHER, &p);
    EXPECT_EQ(stats.timed_out, limit_s < 1);
    EXPECT_EQ(stats.priority_end, kTsDispatcherPriority);
    for (u32 i = 0; i < kSessions; ++i) {
      EXPECT_TRUE(ts[i].released.load()) << "session " << i;
      const bool exits = out[i].wait_for(std::chrono::seconds(10)) == std::future_status::ready;
      EXPECT_TRUE(exits) << "session " << i << " still waits for its release";
      if (!exits) ts_release(ts[i]);  // let it go, so that the test ends and says why
    }
    stop = true;
    for (auto& t : threads) t.join();
  }
}

}  // namespace
}  // namespace dbrepro::sched
