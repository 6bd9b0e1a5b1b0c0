// E5's Python face beyond TPC-C runs: a database loaded once and run as
// several cells (one forked copy each, driver/tpcc/loaded_disk.hpp); replay a page
// reference string through a replacement policy (the trace simulator), and
// read or write traces in libCacheSim's formats. Loads, runs and replays
// release the GIL.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "module_common.hpp"
#include "cache/policies.hpp"
#include "cache/simulator.hpp"
#include "cache/trace_file.hpp"
#include "driver/tpcc/loaded_disk.hpp"
#include "driver/result_json.hpp"
#include "driver/tpcc/fields.hpp"

namespace py = pybind11;
using namespace dbrepro;

namespace {

u32 capacity_of(i64 capacity) {
  if (capacity < 1 || capacity > std::numeric_limits<u32>::max())
    throw std::invalid_argument("capacity: must be in 1.." + std::to_string(std::numeric_limits<u32>::max()) +
                                ", got " + std::to_string(capacity));
  return static_cast<u32>(capacity);
}

py::dict simulate(const std::string& policy, const std::vector<u64>& trace, i64 capacity, i64 warmup) {
  const u32 slots = capacity_of(capacity);
  if (warmup < 0 || static_cast<u64>(warmup) > trace.size())
    throw std::invalid_argument("warmup: must be in 0.." + std::to_string(trace.size()) + " (the trace's requests), got " +
                                std::to_string(warmup));
  cache::with_policy(policy, [](auto) { return 0; });  // a bad name is a ValueError before the run
  cache::TraceStats stats;
  {
    py::gil_scoped_release release;
    stats = cache::simulate(policy, trace, slots, static_cast<u64>(warmup));
  }
  return py::dict(py::arg("policy") = policy, py::arg("capacity") = slots, py::arg("requests") = stats.requests,
                  py::arg("hits") = stats.hits, py::arg("misses") = stats.misses,
                  py::arg("hit_locks") = stats.hit_locks, py::arg("ghost_hits") = stats.ghost_hits,
                  py::arg("hit_ratio") = stats.hit_ratio());
}

// load_disk(**settings): settings by RunConfig's field names, as run_tpcc.
std::unique_ptr<tpcc::LoadedDisk> load_disk(const py::args& args, const py::kwargs& settings) {
  const tpcc::RunConfig config = bindings::config_from("load_disk", tpcc::run_fields(), args, settings);
  tpcc::validate(config);  // before the GIL is released: errors become ValueError
  py::gil_scoped_release release;
  return tpcc::load_disk(config);
}

py::object run_cell(tpcc::LoadedDisk& loaded, double pool_fraction, const py::object& progress) {
  std::optional<py::error_already_set> pending;
  tpcc::ProgressFn tick = bindings::python_tick(progress, pending);
  tpcc::RunResult result;
  {
    py::gil_scoped_release release;
    result = loaded.run_cell(pool_fraction, tick);
  }
  if (pending) throw std::move(*pending);
  return bindings::parse_json(to_json(result));
}

}  // namespace

void register_fifo_cache(py::module_& m) {
  py::class_<tpcc::LoadedDisk>(m, "LoadedDisk",
                               "E5: a TPC-C database loaded on the disk stack (driver/tpcc/loaded_disk.hpp); each forked "
                               "copy runs one cell with run_cell.")
      .def("run_cell", &run_cell, py::kw_only(), py::arg("pool_fraction"), py::arg("progress") = py::none(),
           "Run the mix with the pool at pool_fraction of the database's pages; once per copy. Returns the result "
           "as run_tpcc does.");
  m.def("load_disk", &load_disk,
        "load_disk(**settings): load the TPC-C database of a disk-stack run (settings as run_tpcc's; "
        "pool_fraction is each cell's), for run_cell in forked copies.");
  m.def("cache_simulate", &simulate, py::kw_only(), py::arg("policy"), py::arg("trace"), py::arg("capacity"),
        py::arg("warmup") = 0,
        "E5: replay a page-id reference string through a policy of `capacity` pages; hits and misses of the "
        "requests after the first `warmup`.");
  m.def(
      "cache_read_trace",
      [](const std::string& path, const std::string& format) {
        return cache::read_trace(path, cache::parse_trace_format(format));
      },
      py::kw_only(), py::arg("path"), py::arg("format") = "txt",
      "E5: the page ids of a trace file (txt: one per line; oracle_general: libCacheSim's binary records).");
  m.def(
      "cache_write_trace",
      [](const std::string& path, const std::vector<u64>& ids, const std::string& format, i64 page_size) {
        cache::write_trace(path, ids, cache::parse_trace_format(format), capacity_of(page_size));
      },
      py::kw_only(), py::arg("path"), py::arg("ids"), py::arg("format") = "txt", py::arg("page_size") = 8192,
      "E5: write page ids as a trace file that libCacheSim reads.");
}
