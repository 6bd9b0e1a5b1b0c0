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
#include "openedge/ladder.hpp"

namespace py = pybind11;
using namespace dbrepro;
using namespace dbrepro::openedge;

namespace {

using bindings::in_range;

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

py::dict ladder(i64 rows, i64 fanout, i64 seed, i64 servers, i64 users, i64 max_clients, i64 passes, i64 prefetch,
                i64 fixed_latches, i64 latch_factor, i64 bucket_percent, i64 spin, i64 nap, i64 napmax, i64 message_delay_us, bool client_processes, const std::string& workload, i64 repeats,
                const std::vector<i64>& steps, const std::string& address, const py::object& progress) {
  LadderConfig config;
  config.database.rows = in_range<u64>("rows", rows);
  config.database.fanout = in_range<u32>("fanout", fanout);
  config.database.seed = in_range<u64>("seed", seed);
  config.servers = in_range<u32>("servers", servers);
  config.users = in_range<u32>("users", users);
  config.max_clients = in_range<u32>("max_clients", max_clients);
  config.passes = in_range<u32>("passes", passes);
  config.prefetch = in_range<u32>("prefetch", prefetch);
  config.fixed_latches = in_range<u32>("fixed_latches", fixed_latches);
  config.latch_factor = in_range<u32>("latch_factor", latch_factor);
  config.bucket_percent = in_range<u32>("bucket_percent", bucket_percent);
  config.spin_nap.spin = in_range<u32>("spin", spin);
  config.spin_nap.nap_ms = in_range<u32>("nap", nap);
  config.spin_nap.napmax_ms = in_range<u32>("napmax", napmax);
  config.message_delay_us = in_range<u32>("message_delay_us", message_delay_us);
  config.client_processes = client_processes;
  if (workload == "join")
    config.workload = LadderConfig::Workload::kJoin;
  else if (workload == "scan")
    config.workload = LadderConfig::Workload::kScan;
  else
    throw std::invalid_argument("workload: must be 'join' or 'scan', got '" + workload + "'");
  config.repeats = in_range<u32>("repeats", repeats);
  config.steps.clear();
  for (i64 s : steps) config.steps.push_back(in_range<u32>("steps", s));
  config.address = address;
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
  m.def("openedge_ladder", &ladder, py::kw_only(), py::arg("rows"), py::arg("fanout") = 1, py::arg("seed") = 1,
        py::arg("servers") = 1, py::arg("users") = 20, py::arg("max_clients") = 20, py::arg("passes") = 1,
        py::arg("prefetch") = 100, py::arg("fixed_latches") = 1024, py::arg("latch_factor") = 100,
        py::arg("bucket_percent") = 25, py::arg("spin") = 25000, py::arg("nap") = 1, py::arg("napmax") = 24,
        py::arg("message_delay_us") = 0, py::arg("client_processes") = true,
        py::arg("workload") = "join", py::arg("repeats") = 1, py::arg("steps") = std::vector<i64>{0, 1, 2, 3}, py::arg("address") = "127.0.0.1",
        py::arg("progress") = py::none(),
        "E3: build Table1..Table7, then run the 7-table join for every user at each ladder step "
        "(interleaved, repeated) against servers on loopback TCP; per-run times, wire and access counters.");
  m.def("openedge_ladder_steps", &ladder_steps, "E3's ladder: each step's name, label and features.");
}
