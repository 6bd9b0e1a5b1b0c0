#pragma once
// The one table of E4's run settings (a common/config_fields.hpp table, as
// TPC-C's, E2's and E3's): the Python binding takes a run's settings by these
// names (`_engine.run_sessions(**settings)`), `_engine.quantum_config_fields()`
// exports them and `_engine.quantum_config(**settings)` checks them before a
// run. Ranges and the checks across fields are validate(SessionsRunConfig)'s.
#include <span>
#include <string>

#include "common/config_fields.hpp"
#include "driver/quantum/run.hpp"
#include "sched/session.hpp"

namespace dbrepro::sched {

// A run: the sessions' config and the scheduler that runs them.
struct SessionsRunConfig {
  std::string scheduler = "engine";  // engine (fibers), os_rr (SCHED_RR), os_fair (the fair class), os_ts (TS emulated)
  SessionsConfig sessions;
  TsSettings ts;  // os_ts only
};

using SessionsField = config::Field<SessionsRunConfig>;

std::span<const SessionsField> sessions_fields();

// Every field's range and the scheduler's name (the sessions' own checks: validate(SessionsConfig)).
void validate(const SessionsRunConfig& config);

}  // namespace dbrepro::sched
