// Tests of E4's engine scheduler (sched/fiber_scheduler.hpp) and session
// workloads: with a tick clock (one tick per reading) a quantum of Q ticks is
// exactly Q checks, so switches are counted, not timed; every session
// finishes its work; workloads give the same value however they are run.
#include <gtest/gtest.h>

#include <cmath>
#include <utility>
#include <vector>

#include "latch/blocking_latches.hpp"
#include "sched/fiber_scheduler.hpp"
#include "driver/quantum/run.hpp"
#include "sched/shared_table.hpp"
#include "sched/unit_meter.hpp"
#include "sched/workloads.hpp"

namespace dbrepro::sched {
namespace {

using ScanTable = SharedTable<PlainMutex>;
SharedTableOptions table_of(u64 bytes) { return SharedTableOptions{bytes, 8192}; }

// A session doing `checks` quantum checks, logging which session ran each one.
auto counting_session(u32 id, u32 checks, std::vector<u32>& trace) {
  return [id, checks, &trace](FiberScheduler<TickClock>& s) {
    for (u32 i = 0; i < checks; ++i) {
      trace.push_back(id);
      s.check();
    }
  };
}

TEST(SchedFiberScheduler, SwitchesWhenQuantumExpires) {
  TickClock clock;
  FiberScheduler<TickClock> scheduler(clock, /*quantum=*/3);
  std::vector<u32> trace;
  for (u32 id = 0; id < 3; ++id) scheduler.add(counting_session(id, 10, trace));
  scheduler.run();
  // Slices of 3 checks in turn: 000 111 222 000 111 222 000 111 222 0 1 2.
  const std::vector<u32> expected = {0, 0, 0, 1, 1, 1, 2, 2, 2, 0, 0, 0, 1, 1, 1, 2, 2, 2,
                                     0, 0, 0, 1, 1, 1, 2, 2, 2, 0, 1, 2};
  EXPECT_EQ(trace, expected);
  for (const auto& session : scheduler.sessions()) {
    EXPECT_TRUE(session.fiber->finished());
    EXPECT_EQ(session.switches, 3u);  // at checks 3, 6, 9
  }
  EXPECT_EQ(scheduler.renewals(), 0u);
}

TEST(SchedFiberScheduler, SwitchCountFollowsQuantum) {
  for (i64 quantum : {1, 2, 5, 7, 100}) {
    TickClock clock;
    FiberScheduler<TickClock> scheduler(clock, quantum);
    std::vector<u32> trace;
    for (u32 id = 0; id < 4; ++id) scheduler.add(counting_session(id, 50, trace));
    scheduler.run();
    EXPECT_EQ(trace.size(), 200u);
    u64 switches = 0;
    for (const auto& session : scheduler.sessions()) switches += session.switches;
    // Every session yields at each multiple of the quantum, except the last
    // one standing, which renews its quantum instead once the others are done.
    const u64 per_session = 50 / quantum;
    EXPECT_LE(switches, 4 * per_session) << "quantum " << quantum;
    EXPECT_GE(switches, 3 * per_session) << "quantum " << quantum;
    EXPECT_EQ(switches + scheduler.renewals(), 4 * per_session) << "quantum " << quantum;
  }
}

TEST(SchedFiberScheduler, LoneSessionRenewsInsteadOfSwitching) {
  TickClock clock;
  FiberScheduler<TickClock> scheduler(clock, 4);
  std::vector<u32> trace;
  scheduler.add(counting_session(0, 20, trace));
  scheduler.run();
  EXPECT_EQ(scheduler.sessions()[0].switches, 0u);
  EXPECT_EQ(scheduler.renewals(), 5u);
}

TEST(SchedFiberScheduler, ExceptionInSessionReachesCaller) {
  TickClock clock;
  FiberScheduler<TickClock> scheduler(clock, 2);
  scheduler.add([](FiberScheduler<TickClock>&) { throw std::runtime_error("session failed"); });
  EXPECT_THROW(scheduler.run(), std::runtime_error);
}

TEST(SchedWorkloads, CpuSessionIsDeterministicAndChecksEvery4096) {
  u64 checks = 0;
  const double a = cpu_session(10 * kCpuCheckEvery, [&] { ++checks; });
  EXPECT_EQ(checks, 10u);
  double v = 0;
  for (u64 f = 1; f <= 10 * kCpuCheckEvery; ++f) v = std::sqrt(v + static_cast<double>(f));
  EXPECT_EQ(a, v);
}

TEST(SchedWorkloads, ScanSumsEveryRowOfEveryPass) {
  ScanTable table(table_of(64 * 1024));
  ASSERT_EQ(table.pages(), 8u);
  u64 checks = 0;
  LatchCounters latch;
  const u64 sum = scan_session(table, 3, latch, [&] { ++checks; });
  const u64 rows = 64 * 1024 / 8;
  EXPECT_EQ(sum, 3 * (rows * (rows - 1) / 2));
  EXPECT_EQ(checks, 3 * 8u);
  // A consistent get per page: the chain latch to pin, again to unpin.
  EXPECT_EQ(latch.acquisitions, 2 * 3 * 8u);
  EXPECT_EQ(latch.waits, 0u);
  EXPECT_EQ(latch.holder_preemptions, 0u);
}

TEST(SchedFiberScheduler, WorkloadsUnderFibersGiveTheSameResults) {
  TickClock clock;
  FiberScheduler<TickClock> scheduler(clock, 3);
  ScanTable table(table_of(32 * 1024));
  std::vector<double> cpu(3);
  std::vector<u64> scan(3);
  std::vector<LatchCounters> latch(3);
  for (u32 i = 0; i < 3; ++i) {
    scheduler.add([&, i](auto& s) { cpu[i] = cpu_session(20 * kCpuCheckEvery, [&] { s.check(); }); });
    scheduler.add([&, i](auto& s) { scan[i] = scan_session(table, 5, latch[i], [&] { s.check(); }); });
  }
  scheduler.run();
  const double cpu_alone = cpu_session(20 * kCpuCheckEvery, [] {});
  LatchCounters alone;
  const u64 scan_alone = scan_session(table, 5, alone, [] {});
  for (u32 i = 0; i < 3; ++i) {
    EXPECT_EQ(cpu[i], cpu_alone);
    EXPECT_EQ(scan[i], scan_alone);
    // Each fiber's latch operations are counted to it, though they share a thread.
    EXPECT_EQ(latch[i].acquisitions, alone.acquisitions);
  }
  u64 switches = 0;
  for (const auto& session : scheduler.sessions()) switches += session.switches;
  EXPECT_GT(switches, 0u);
}

TEST(SchedRunSessions, EngineSchedulerCompletesEverySession) {
  SessionsConfig config;
  config.cpus = 1;
  config.sessions_per_cpu = 3;
  config.quantum_ms = 0.01;
  config.cpu_iterations = 2 * kCpuUnit;
  const SessionsResult result = run_engine_scheduler(config);
  ASSERT_EQ(result.sessions.size(), 3u);
  const double expected = cpu_session(config.cpu_iterations, [] {});
  for (const auto& s : result.sessions) {
    EXPECT_EQ(s.effective_quantum_ms, 0.01);  // the engine's own quantum
    EXPECT_EQ(s.switch_cost.units, 2u);       // one per kCpuUnit iterations
    EXPECT_EQ(s.result, expected);
    EXPECT_GT(s.wall_seconds, 0);
    EXPECT_LE(s.wall_seconds, result.makespan_seconds);
  }
}

TEST(SchedRunSessions, FairOsSchedulerCompletesEverySession) {
  SessionsConfig config;
  config.workload = WorkloadKind::kMemory;
  config.cpus = 1;
  config.sessions_per_cpu = 2;
  config.table_bytes = 64 * 1024;
  config.passes = 2;
  const SessionsResult result = run_os_scheduler(config, OsPolicy::kFair);
  ASSERT_EQ(result.sessions.size(), 2u);
  for (const auto& s : result.sessions) EXPECT_EQ(s.result, result.sessions[0].result);
  EXPECT_EQ(result.table_bytes, 64 * 1024);
}

TEST(SchedUnitMeter, FitsEachUnitsCpuTimeAgainstItsSwitches) {
  // Readings (CPU s, switches): start (0, 0), then units of (1.0, 0), (1.1, 1), (1.2, 2).
  const std::vector<std::pair<double, u64>> reads{{0, 0}, {1.0, 0}, {2.1, 1}, {3.3, 3}};
  size_t next = 0;
  UnitMeter meter([&] { return reads[next++]; });
  for (int unit = 0; unit < 3; ++unit) meter();
  const SwitchCostFit& fit = meter.fit();
  EXPECT_EQ(fit.units, 3u);
  EXPECT_DOUBLE_EQ(fit.sum_x, 3);
  EXPECT_DOUBLE_EQ(fit.sum_xx, 5);
  EXPECT_NEAR(fit.sum_y, 3.3, 1e-12);
  EXPECT_NEAR(fit.sum_xy, 1.1 + 2 * 1.2, 1e-12);
}

TEST(SchedWorkloads, UnitsAreWholeChunksOfWork) {
  u64 units = 0;
  cpu_session(3 * kCpuUnit + kCpuCheckEvery, [] {}, [&] { ++units; });
  EXPECT_EQ(units, 3u);
  units = 0;
  ScanTable table(table_of(48 * 8192));  // 48 pages: units run on across passes
  LatchCounters latch;
  scan_session(table, 4, latch, [] {}, [&] { ++units; });
  EXPECT_EQ(units, 4 * 48 / kScanUnitPages);
}

TEST(SchedRunSessions, UnpinnedMemorySessionsScanTheOneSharedTable) {
  SessionsConfig config;
  config.workload = WorkloadKind::kMemory;
  config.cpus = 1;
  config.pinned = false;
  config.sessions_per_cpu = 3;
  config.table_bytes = kScanUnitPages * 8192;
  config.passes = 3;
  const SessionsResult result = run_os_scheduler(config, OsPolicy::kFair);
  ASSERT_EQ(result.sessions.size(), 3u);
  ScanTable table(table_of(config.table_bytes));
  LatchCounters alone;
  const double expected = static_cast<double>(scan_session(table, config.passes, alone, [] {}));
  EXPECT_EQ(result.table_bytes, config.table_bytes);  // one table, not one per session
  EXPECT_GE(result.cache_bytes, 3.9 * config.table_bytes);  // the article's 180 MB cache over its 46 MB table
  EXPECT_EQ(result.latches, config.latches);
  for (const auto& s : result.sessions) {
    EXPECT_EQ(s.result, expected);
    EXPECT_EQ(s.latch.acquisitions, alone.acquisitions);
    EXPECT_EQ(s.switch_cost.units, 3u);  // a pass is one unit here
    EXPECT_GE(s.effective_quantum_ms, 0);
  }
}

TEST(SchedRunSessions, RejectsBadConfig) {
  SessionsConfig config;
  config.cpus = 0;
  EXPECT_THROW(validate(config), std::invalid_argument);
  config.cpus = 1;
  config.quantum_ms = 0;
  EXPECT_THROW(validate(config), std::invalid_argument);
  config.quantum_ms = 10;
  config.workload = WorkloadKind::kMemory;
  config.cache_over_table = 0.5;
  EXPECT_THROW(validate(config), std::invalid_argument);
}

TEST(SchedRunSessions, EveryLatchKindRunsTheSharedTable) {
  for (LatchKind kind : {LatchKind::kSpinNap, LatchKind::kAdaptive, LatchKind::kFutex}) {
    SessionsConfig config;
    config.workload = WorkloadKind::kMemory;
    config.latch = kind;
    config.cpus = 1;
    config.sessions_per_cpu = 2;
    config.quantum_ms = 0.01;
    config.table_bytes = 16 * 8192;
    config.passes = 2;
    const SessionsResult result = run_engine_scheduler(config);
    for (const auto& s : result.sessions) {
      EXPECT_EQ(s.result, result.sessions[0].result);
      EXPECT_EQ(s.latch.acquisitions, 2 * 2 * 16u);
      EXPECT_EQ(s.latch.holder_preemptions, 0u);  // fibers yield only between pages, never holding a latch
    }
  }
  EXPECT_EQ(spin_nap_params().spin, SpinNapParams{}.spin);  // the run's spin count was restored
}

}  // namespace
}  // namespace dbrepro::sched
