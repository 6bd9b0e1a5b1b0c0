// E4 (scheduler quantum) in dbrepro._engine: run S sessions per CPU under the
// engine's fiber scheduler or the OS scheduler. Inputs are checked with the
// GIL held; the run releases it; results come back as plain dicts.
#include <pybind11/pybind11.h>

#include <limits>
#include <stdexcept>
#include <string>

#include "module_common.hpp"
#include "driver/quantum/run.hpp"
#include "driver/quantum/fields.hpp"
#include "sched/ts_table.hpp"

namespace py = pybind11;
using namespace dbrepro;
using namespace dbrepro::sched;

namespace {

py::dict switch_cost_dict(const SwitchCostFit& f) {
  return py::dict(py::arg("units") = f.units, py::arg("sum_x") = f.sum_x, py::arg("sum_y") = f.sum_y,
                  py::arg("sum_xy") = f.sum_xy, py::arg("sum_xx") = f.sum_xx);
}

py::dict to_dict(const SessionsResult& result) {
  py::list sessions;
  for (const auto& s : result.sessions)
    sessions.append(py::dict(py::arg("session") = s.session, py::arg("cpu") = s.cpu,
                             py::arg("wall_seconds") = s.wall_seconds, py::arg("start_seconds") = s.start_seconds,
                             py::arg("cpu_seconds") = s.cpu_seconds,
                             py::arg("voluntary_switches") = s.voluntary_switches,
                             py::arg("involuntary_switches") = s.involuntary_switches,
                             py::arg("engine_switches") = s.engine_switches, py::arg("result") = s.result,
                             py::arg("effective_quantum_ms") = s.effective_quantum_ms,
                             py::arg("switch_cost_fit") = switch_cost_dict(s.switch_cost),
                             py::arg("latch_acquisitions") = s.latch.acquisitions,
                             py::arg("latch_waits") = s.latch.waits, py::arg("latch_wait_ns") = s.latch.wait_ns,
                             py::arg("latch_holder_preemptions") = s.latch.holder_preemptions,
                             py::arg("ts_expiries") = s.ts_expiries, py::arg("ts_boosts") = s.ts_boosts,
                             py::arg("ts_final_level") = s.ts_final_level));
  const DispatcherStats& d = result.dispatcher;
  return py::dict(py::arg("scheduler") = result.scheduler, py::arg("makespan_seconds") = result.makespan_seconds,
                  py::arg("table_bytes") = result.table_bytes, py::arg("cache_bytes") = result.cache_bytes,
                  py::arg("latches") = result.latches, py::arg("sessions") = sessions,
                  py::arg("dispatcher") = py::dict(py::arg("cpu_seconds") = d.cpu_seconds,
                                                   py::arg("wall_seconds") = d.wall_seconds, py::arg("ticks") = d.ticks,
                                                   py::arg("late_ticks") = d.late_ticks, py::arg("updates") = d.updates,
                                                   py::arg("priority_sets") = d.priority_sets,
                                                   py::arg("preemptions") = d.preemptions,
                                                   py::arg("timed_out") = d.timed_out,
                                                   py::arg("priority_end") = d.priority_end,
                                                   py::arg("update_phase") = d.update_phase));
}

// run_sessions(**settings): settings by the E4 table's names (driver/quantum/fields.hpp),
// each set through the table and checked before the run.
py::dict run_sessions(const py::args& args, const py::kwargs& settings) {
  const SessionsRunConfig config = bindings::config_from("run_sessions", sessions_fields(), args, settings);
  validate(config);
  SessionsResult result;
  {
    py::gil_scoped_release release;
    if (config.scheduler == "engine")
      result = run_engine_scheduler(config.sessions);
    else if (config.scheduler == "os_ts")
      result = run_ts_scheduler(config.sessions, config.ts);
    else
      // os_fair_q is SCHED_OTHER: the caller has set the fair scheduler's base slice.
      result = run_os_scheduler(config.sessions, config.scheduler == "os_rr" ? OsPolicy::kRoundRobin : OsPolicy::kFair);
  }
  return to_dict(result);
}

py::dict reading_dict(const TsReading& r) {
  return py::dict(py::arg("name") = std::string(r.name), py::arg("class") = std::string(r.klass),
                  py::arg("what") = std::string(r.what), py::arg("q_levels") = py::make_tuple(r.q_first, r.q_last),
                  py::arg("queues") = r.queues == TsQueues::kGlobal ? "global" : "per_cpu");
}

// A reading's table and the dispatcher's times, as the engine holds them
// (sched/ts_table.hpp): the prediction simulates the same tables. Each level's
// quantum_ms is the one in effect with Q (quantum_ms > 0) put where the
// reading puts it; `readings` lists every reading.
py::dict ts_dispatch_table(const std::string& reading_name, double quantum_ms) {
  const TsReading& reading = ts_reading(reading_name);
  const TsTimes times = ts_times(reading, quantum_ms, 1.0);
  py::list levels;
  for (u32 l = 0; l < kTsLevels; ++l) {
    const TsLevel& r = (*reading.table)[l];
    levels.append(py::dict(py::arg("level") = l, py::arg("quantum_ms") = static_cast<double>(times.quantum_ns[l]) / 1e6,
                           py::arg("tqexp") = r.tqexp, py::arg("slpret") = r.slpret,
                           py::arg("maxwait_s") = r.maxwait_s, py::arg("lwait") = r.lwait));
  }
  py::list readings;
  for (const TsReading& r : kTsReadings) readings.append(reading_dict(r));
  return py::dict(py::arg("levels") = levels, py::arg("tick_ms") = kSolarisTickMs,
                  py::arg("update_ms") = kTsUpdateMs, py::arg("entry_level") = kTsEntryLevel,
                  py::arg("woken_level") = kTsWokenLevel, py::arg("reading") = reading_dict(reading),
                  py::arg("readings") = readings);
}

}  // namespace

void register_quantum(py::module_& m) {
  m.def("run_sessions", &run_sessions,
        "run_sessions(**settings), settings named as quantum_config_fields() lists them. E4: run S sessions per CPU (pinned to it, or free on all the CPUs) under the engine's fiber scheduler "
        "(engine) or the OS scheduler (os_rr: SCHED_RR, whose timeslice the caller sets; os_fair: SCHED_OTHER; "
        "os_ts: Solaris's TS class emulated over SCHED_FIFO with a dispatcher thread); "
        "per-session times, switches, the quantum read back and the switch-cost sums as dicts.");
  m.def("ts_dispatch_table", &ts_dispatch_table, py::arg("reading") = "all", py::arg("quantum_ms") = 0.0,
        "ts_dispatch_table(reading='all', quantum_ms=0): a reading's dispatch table as the engine's os_ts scheduler "
        "uses it (the default ts_dptbl for TS; FX or RT at one priority): 60 levels (quantum_ms with Q put where "
        "the reading puts it, 0: the table's own; tqexp, slpret, maxwait_s, lwait), the clock tick, the update "
        "period, the entry level, the level a woken session starts at, the reading and every reading.");
  m.def("available_cpus", &available_cpus, "CPUs in this process's affinity mask.");
  bindings::def_config<SessionsRunConfig>(m, "quantum_config", sessions_fields(),
                                          [](const SessionsRunConfig& c) { validate(c); },
                                          "E4's session runs (engine/src/driver/quantum/fields.hpp)");
}
