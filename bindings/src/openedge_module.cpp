// E3 (OpenEdge 12 server features) in dbrepro._engine: the ladder of server
// configurations over loopback TCP. Inputs are checked with the GIL held; the
// run releases it and re-takes it between steps to let Python handle Ctrl-C
// and show progress; results come back as plain dicts.
#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "module_common.hpp"
#include "driver/openedge/run.hpp"
#include "driver/openedge/fields.hpp"

namespace py = pybind11;
using namespace dbrepro;
using namespace dbrepro::openedge;

namespace {

py::dict run_dict(const StepRun& run) {
  py::list users;
  for (double s : run.user_seconds) users.append(s);
  return py::dict(
      py::arg("step") = run.step, py::arg("name") = kLadderSteps[run.step].name, py::arg("repeat") = run.repeat,
      py::arg("wall_seconds") = run.wall_seconds, py::arg("cpu_seconds") = run.cpu_seconds,
      py::arg("user_seconds") = users, py::arg("tuples") = run.tuples, py::arg("checksum") = run.checksum,
      py::arg("records_received") = run.records_received, py::arg("bytes_sent") = run.wire.bytes_sent,
      py::arg("bytes_received") = run.wire.bytes_received, py::arg("messages_sent") = run.wire.messages_sent,
      py::arg("messages_received") = run.wire.messages_received,
      py::arg("added_latency_seconds") = static_cast<double>(run.wire.delay_us) / 1e6,
      py::arg("hash_lookups") = run.cache.hits + run.cache.misses, py::arg("lookups_avoided") = run.cache.refixes,
      py::arg("revalidation_failures") = run.cache.refix_failures, py::arg("misses") = run.cache.misses,
      py::arg("record_reads") = run.access.record_reads, py::arg("index_blocks") = run.access.index_blocks,
      py::arg("latch_waits") = run.cache.latch_waits, py::arg("latch_wait_ns") = run.cache.latch_wait_ns,
      py::arg("naps") = run.naps, py::arg("latches") = run.latches, py::arg("buckets") = run.buckets,
      py::arg("frames") = run.frames);
}

// openedge_ladder(progress=None, **settings): settings by LadderConfig's
// field names (driver/openedge/fields.hpp).
py::dict ladder(const py::args& args, const py::kwargs& settings) {
  py::object progress = py::none();
  const LadderConfig config = bindings::config_from("openedge_ladder", ladder_fields(), args, settings, &progress);
  validate(config);  // before the GIL is released: errors become ValueError

  std::optional<py::error_already_set> pending;
  LadderTick tick = bindings::python_tick(progress, pending);
  LadderResult result;
  {
    py::gil_scoped_release release;
    result = run_ladder(config, tick);
  }
  if (pending) throw std::move(*pending);
  py::list runs;
  for (const auto& run : result.runs) runs.append(run_dict(run));
  py::list table_rows;
  for (u64 n : result.table_rows) table_rows.append(n);
  return py::dict(py::arg("table_rows") = table_rows, py::arg("pages") = result.pages,
                  py::arg("interrupted") = result.interrupted, py::arg("runs") = runs);
}

py::list ladder_steps() {
  py::list steps;
  for (u32 i = 0; i < kLadderSteps.size(); ++i) {
    const auto& s = kLadderSteps[i];
    steps.append(py::dict(py::arg("step") = i, py::arg("name") = s.name, py::arg("label") = s.label,
                          py::arg("latch_factor") = s.latch_factor, py::arg("optimistic") = s.optimistic,
                          py::arg("multi_threaded") = s.mode == ServerMode::kMultiThreaded,
                          py::arg("server_side_join") = s.server_side_join));
  }
  return steps;
}

}  // namespace

void register_openedge(py::module_& m) {
  m.def("openedge_ladder", &ladder,
        "openedge_ladder(progress=None, **settings): build Table1..Table7, then run the 7-table join for every "
        "user at each ladder step (interleaved, repeated) against servers on loopback TCP; per-run times, wire and "
        "access counters. Settings are named as openedge_config_fields() lists them.");
  bindings::def_config<LadderConfig>(m, "openedge_config", ladder_fields(), [](const LadderConfig& c) { validate(c); },
                                     "an E3 ladder (engine/src/driver/openedge/fields.hpp)");
  m.def("openedge_ladder_steps", &ladder_steps, "E3's ladder: each step's name, label and features.");
}
