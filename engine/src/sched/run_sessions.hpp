#pragma once
// E4's two ways of running S sessions per CPU: the engine's fiber scheduler
// (one pinned worker per CPU) and the OS scheduler (one pinned thread per
// session, SCHED_RR or SCHED_OTHER). The RR timeslice itself is a sysctl that
// the caller sets (dbrepro.quantum does, and restores it).
#include "sched/session.hpp"

namespace dbrepro::sched {

enum class OsPolicy : u8 { kRoundRobin, kFair };

void validate(const SessionsConfig& config);
SessionsResult run_engine_scheduler(const SessionsConfig& config);
SessionsResult run_os_scheduler(const SessionsConfig& config, OsPolicy policy);

// CPUs this process may run on (its affinity mask).
u32 available_cpus();

}  // namespace dbrepro::sched
