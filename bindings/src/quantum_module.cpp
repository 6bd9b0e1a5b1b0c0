// E4 (scheduler quantum) in dbrepro._engine: run S sessions per CPU under the
// engine's fiber scheduler or the OS scheduler. Inputs are checked with the
// GIL held; the run releases it; results come back as plain dicts.
#include <pybind11/pybind11.h>

#include <limits>
#include <stdexcept>
#include <string>

#include "module_common.hpp"
#include "sched/run_sessions.hpp"

namespace py = pybind11;
using namespace dbrepro;
using namespace dbrepro::sched;

namespace {

using bindings::in_range;

WorkloadKind parse_workload(const std::string& name) {
  if (name == "cpu") return WorkloadKind::kCpu;
  if (name == "memory") return WorkloadKind::kMemory;
  throw std::invalid_argument("workload: invalid choice '" + name + "' (allowed: cpu, memory)");
}

py::dict switch_cost_dict(const SwitchCostFit& f) {
  return py::dict(py::arg("units") = f.units, py::arg("sum_x") = f.sum_x, py::arg("sum_y") = f.sum_y,
                  py::arg("sum_xy") = f.sum_xy, py::arg("sum_xx") = f.sum_xx);
}

py::dict to_dict(const SessionsResult& result) {
  py::list sessions;
  for (const auto& s : result.sessions)
    sessions.append(py::dict(py::arg("session") = s.session, py::arg("cpu") = s.cpu,
                             py::arg("wall_seconds") = s.wall_seconds, py::arg("cpu_seconds") = s.cpu_seconds,
                             py::arg("voluntary_switches") = s.voluntary_switches,
                             py::arg("involuntary_switches") = s.involuntary_switches,
                             py::arg("engine_switches") = s.engine_switches, py::arg("result") = s.result,
                             py::arg("effective_quantum_ms") = s.effective_quantum_ms,
                             py::arg("switch_cost_fit") = switch_cost_dict(s.switch_cost)));
  return py::dict(py::arg("scheduler") = result.scheduler, py::arg("makespan_seconds") = result.makespan_seconds,
                  py::arg("table_bytes") = result.table_bytes, py::arg("sessions") = sessions);
}

py::dict run_sessions(const std::string& scheduler, const std::string& workload, i64 cpus, bool pinned,
                      i64 sessions_per_cpu, double quantum_ms, i64 cpu_iterations, i64 table_bytes, i64 passes, i64 page_size) {
  SessionsConfig config;
  config.workload = parse_workload(workload);
  config.cpus = in_range<u32>("cpus", cpus);
  config.pinned = pinned;
  config.sessions_per_cpu = in_range<u32>("sessions_per_cpu", sessions_per_cpu);
  config.quantum_ms = quantum_ms;
  config.cpu_iterations = in_range<u64>("cpu_iterations", cpu_iterations);
  config.table_bytes = in_range<u64>("table_bytes", table_bytes);
  config.passes = in_range<u32>("passes", passes);
  config.page_size = in_range<u32>("page_size", page_size);
  if (scheduler != "engine" && scheduler != "os_rr" && scheduler != "os_fair")
    throw std::invalid_argument("scheduler: invalid choice '" + scheduler + "' (allowed: engine, os_rr, os_fair)");
  validate(config);
  SessionsResult result;
  {
    py::gil_scoped_release release;
    if (scheduler == "engine")
      result = run_engine_scheduler(config);
    else
      result = run_os_scheduler(config, scheduler == "os_rr" ? OsPolicy::kRoundRobin : OsPolicy::kFair);
  }
  return to_dict(result);
}

}  // namespace

void register_quantum(py::module_& m) {
  m.def("run_sessions", &run_sessions, py::kw_only(), py::arg("scheduler"), py::arg("workload"), py::arg("cpus"),
        py::arg("pinned"), py::arg("sessions_per_cpu"), py::arg("quantum_ms"), py::arg("cpu_iterations"),
        py::arg("table_bytes"), py::arg("passes"), py::arg("page_size") = 8192,
        "E4: run S sessions per CPU (pinned to it, or free on all the CPUs) under the engine's fiber scheduler "
        "(engine) or the OS scheduler (os_rr: SCHED_RR, whose timeslice the caller sets; os_fair: SCHED_OTHER); "
        "per-session times, switches, the quantum read back and the switch-cost sums as dicts.");
  m.def("available_cpus", &available_cpus, "CPUs in this process's affinity mask.");
}
