// E5's Python face beyond TPC-C runs: replay a page reference string through
// a replacement policy (the trace simulator), and read or write traces in
// libCacheSim's formats. Replays release the GIL.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "cache/policies.hpp"
#include "cache/simulator.hpp"
#include "cache/trace_file.hpp"

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
                  py::arg("hit_locks") = stats.hit_locks, py::arg("hit_ratio") = stats.hit_ratio());
}

}  // namespace

void register_fifo_cache(py::module_& m) {
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
