#pragma once
// E4's ways of running S sessions per CPU: the engine's fiber scheduler
// (one worker per CPU) and the OS scheduler (one thread per session,
// SCHED_RR, SCHED_OTHER, or Solaris's TS class emulated over SCHED_FIFO), each pinned to its CPU or free on all of the run's
// CPUs (SessionsConfig::pinned). The RR timeslice itself is a sysctl that the
// caller sets (dbrepro.quantum does, and restores it); each session thread
// reads back the one in effect with sched_rr_get_interval.
#include <string>

#include "sched/session.hpp"
#include "sched/ts_table.hpp"

namespace dbrepro::sched {

enum class OsPolicy : u8 { kRoundRobin, kFair };

void validate(const SessionsConfig& config);
SessionsResult run_engine_scheduler(const SessionsConfig& config);
SessionsResult run_os_scheduler(const SessionsConfig& config, OsPolicy policy);

// Solaris's time-sharing class emulated (sched/ts_linux.hpp): Q (quantum_ms)
// in the levels the reading puts it in (sched/ts_table.hpp's kTsReadings: every
// level of the default ts_dptbl for `all`), every dispatcher time times
// time_scale; past time_limit_s the sessions are given back to SCHED_OTHER.
// How the sessions start (issue 55): at entry_level, session k start_gap_ms x k
// after the first (before time_scale), the first update update_phase of a
// period after the dispatcher's start (0: drawn at random for each run).
struct TsSettings {
  double time_scale = 1.0;
  double time_limit_s = 600;
  std::string reading = "all";
  u32 entry_level = kTsEntryLevel;
  double update_phase = 1.0;
  double start_gap_ms = 0;
};
SessionsResult run_ts_scheduler(const SessionsConfig& config, const TsSettings& ts);

// CPUs this process may run on (its affinity mask).
u32 available_cpus();

}  // namespace dbrepro::sched
