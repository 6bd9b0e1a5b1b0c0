#pragma once
// What one E4 run asks for and what each session measured.
#include <string>
#include <vector>

#include "common/types.hpp"
#include "latch/holder_preemption.hpp"
#include "sched/shared_table.hpp"
#include "sched/unit_meter.hpp"
#include "sched/workloads.hpp"

namespace dbrepro::sched {

struct SessionsConfig {
  WorkloadKind workload = WorkloadKind::kCpu;
  u32 cpus = 1;              // CPUs used, 0..cpus-1; sessions spread evenly
  bool pinned = true;        // each session (engine: worker) pinned to its CPU, or free on all cpus
  u32 sessions_per_cpu = 1;
  double quantum_ms = 100;   // engine scheduler's quantum (the OS one is a sysctl)
  u64 cpu_iterations = 10'000'000;
  u64 table_bytes = 8 << 20;
  u32 passes = 25;
  u32 page_size = 8192;
  // The shared table's buffer cache (sched/shared_table.hpp).
  LatchKind latch = LatchKind::kSpinNap;
  u32 latch_spin = 2000;                   // spin-nap latch: tries before a nap (Oracle's _spin_count)
  double cache_over_table = 180.0 / 46.0;  // the article's 180 MB cache over its 46 MB table
  u32 latches = 1024;                      // cache-buffers-chains latches
};

struct SessionStats {
  u32 session = 0;
  u32 cpu = 0;
  double wall_seconds = 0;      // from the common start to this session's end
  double start_seconds = 0;     // when it was to start after the common start (os_ts's staggered starts; else 0)
  double cpu_seconds = 0;       // CPU time spent running this session
  u64 voluntary_switches = 0;   // kernel's per-thread counters (OS path; worker's for fibers)
  u64 involuntary_switches = 0;
  u64 engine_switches = 0;      // fiber switches away from this session (engine path)
  double result = 0;            // workload's value: deterministic
  // The quantum in effect while it ran: the kernel's sched_rr_get_interval of
  // the session's thread (0 under the fair scheduler here), the engine's own
  // quantum for fibers.
  double effective_quantum_ms = 0;
  SwitchCostFit switch_cost;    // its units of work: CPU time against switches inside
  LatchCounters latch;          // the shared table's chain latches, as this session took them
  // Under the emulated TS class (os_ts, sched/ts_linux.hpp): quanta used up, raises to ts_lwait, last level.
  u64 ts_expiries = 0;
  u64 ts_boosts = 0;
  u32 ts_final_level = 0;
};

// The TS dispatcher's own cost and counts (os_ts; zero under the other schedulers).
struct DispatcherStats {
  double cpu_seconds = 0;   // the dispatcher thread's CPU time
  double wall_seconds = 0;
  u64 ticks = 0;
  u64 late_ticks = 0;
  u64 updates = 0;          // once-a-second updates (scaled)
  u64 priority_sets = 0;
  u64 preemptions = 0;      // ticks that preempted a session (an involuntary switch not the scheduler's)
  bool timed_out = false;   // the run passed its time limit: sessions were given back to SCHED_OTHER
  int priority_end = 0;     // the dispatcher's own SCHED_FIFO priority at its end (0: not SCHED_FIFO)
  double update_phase = 0;  // the first update's offset after its start, in update periods (drawn or given)
};

struct SessionsResult {
  std::string scheduler;  // "engine", "os_rr", "os_fair", "os_ts"
  double makespan_seconds = 0;
  double table_bytes = 0;  // the table every session scans (memory workload)
  double cache_bytes = 0;  // the buffer cache it is loaded in
  u32 latches = 0;         // the cache's chain latches
  std::vector<SessionStats> sessions;
  DispatcherStats dispatcher;
};

}  // namespace dbrepro::sched
