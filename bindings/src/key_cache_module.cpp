// E2's Python face: build the sbtest table, run select_random_points against
// the key cache, each segments value in turn per cell, in one of the modes
// (client/server over a Unix socket, or direct). Runs release the GIL (the
// client_server mode forks its client process from the calling thread);
// results are plain dicts.
// mutex_waits and mutex_wait_ns are the segment latches' waits (CacheStats);
// mutex_held_ns and mutex_long_holds their holding (keycache/timed_latch.hpp).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "module_common.hpp"
#include "driver/key_cache/fields.hpp"
#include "driver/key_cache/run.hpp"
#include "sysbench/point_stream.hpp"
#include "sysbench/sbtest.hpp"

namespace py = pybind11;
using namespace dbrepro;

namespace {

using bindings::in_range;

py::dict build_table(const std::string& directory, i64 rows, i64 seed, i64 block_size,
                     const std::string& distribution) {
  const sysbench::KeyDistribution dist = sysbench::parse_distribution(distribution);
  const u64 n = in_range<u32>("rows", rows, 1);
  const u64 s = in_range<u64>("seed", seed, 0);
  const u32 size = in_range<u32>("block_size", block_size, 512);
  if ((size & (size - 1)) != 0 || size > 16384)
    throw std::invalid_argument("block_size: must be a power of two in 512..16384, got " + std::to_string(size));
  sysbench::SbtestMeta meta;
  {
    py::gil_scoped_release release;
    meta = sysbench::build_sbtest(directory, n, s, size, dist);
  }
  return py::dict(py::arg("rows") = meta.rows, py::arg("seed") = meta.seed, py::arg("block_size") = meta.block_size,
                  py::arg("distribution") = sysbench::distribution_name(meta.distribution),
                  py::arg("index_blocks") = meta.index_blocks, py::arg("k_index_height") = meta.k_index.height,
                  py::arg("data_bytes") = meta.rows * sizeof(sysbench::SbtestRow),
                  py::arg("index_bytes") = u64{meta.index_blocks} * meta.block_size);
}

py::dict table_info(const std::string& directory) {
  const sysbench::SbtestTable table(directory);
  const auto& meta = table.meta();
  return py::dict(py::arg("rows") = meta.rows, py::arg("seed") = meta.seed, py::arg("block_size") = meta.block_size,
                  py::arg("distribution") = sysbench::distribution_name(meta.distribution),
                  py::arg("index_blocks") = meta.index_blocks, py::arg("k_index_height") = meta.k_index.height);
}

// key_cache_run(**settings): settings by KeyCacheRunConfig's field names
// (driver/key_cache/fields.hpp), each set through the table.
py::dict run(const py::args& args, const py::kwargs& settings) {
  keycache_driver::KeyCacheRunConfig config =
      bindings::config_from("key_cache_run", keycache_driver::key_cache_fields(), args, settings);
  keycache_driver::validate(config);
  keycache_driver::KeyCacheRunResult result;
  {
    py::gil_scoped_release release;
    result = keycache_driver::run_key_cache(config);
  }
  py::list cells;
  for (const auto& c : result.cells)
    cells.append(py::dict(
        py::arg("segments") = c.segments, py::arg("segment_count") = c.segment_count,
        py::arg("blocks_per_segment") = c.blocks_per_segment, py::arg("buffer_bytes") = c.buffer_bytes,
        py::arg("threads") = c.threads, py::arg("points") = c.points,
        py::arg("distribution") = sysbench::distribution_name(c.distribution),
        py::arg("index_fraction") = c.index_fraction, py::arg("queries") = c.queries,
        py::arg("rows") = c.rows, py::arg("elapsed_seconds") = c.elapsed_seconds,
        py::arg("cpu_seconds") = c.cpu_seconds, py::arg("queries_per_second") = c.queries_per_second,
        py::arg("latency_us_p50") = c.latency_us_p50, py::arg("latency_us_p95") = c.latency_us_p95,
        py::arg("latency_us_p99") = c.latency_us_p99, py::arg("latency_us_max") = c.latency_us_max,
        py::arg("hits") = c.counters.hits, py::arg("misses") = c.counters.misses,
        py::arg("reads") = c.counters.reads, py::arg("read_arounds") = c.counters.read_arounds,
        py::arg("inflight_waits") = c.counters.inflight_waits, py::arg("mutex_waits") = c.counters.latch_waits,
        py::arg("mutex_wait_ns") = c.counters.latch_wait_ns, py::arg("mutex_acquisitions") = c.holds.acquisitions,
        py::arg("mutex_held_ns") = c.holds.held_ns, py::arg("mutex_long_holds") = c.holds.long_holds,
        py::arg("involuntary_switches") = c.involuntary_switches,
        py::arg("voluntary_switches") = c.voluntary_switches, py::arg("connections") = c.connections,
        py::arg("client_cpu_seconds") = c.client_cpu_seconds,
        py::arg("client_involuntary_switches") = c.client_involuntary_switches,
        py::arg("client_voluntary_switches") = c.client_voluntary_switches));
  return py::dict(py::arg("rows") = result.rows, py::arg("block_size") = result.block_size,
                  py::arg("index_blocks") = result.index_blocks, py::arg("latch") = result.latch,
                  py::arg("mode") = result.mode, py::arg("order") = result.order, py::arg("cells") = cells);
}

// The first `queries` queries of one client thread, as the model's clients
// draw them (sysbench/point_stream.hpp): the workload definition's C++ side.
std::vector<std::vector<u32>> points_of(i64 seed, i64 thread, i64 threads, i64 rows, const std::string& distribution,
                                        i64 points, i64 queries) {
  const u32 t = in_range<u32>("threads", threads, 1);
  const u32 tid = in_range<u32>("thread", thread, 0);
  if (t > 1024 || tid >= t) throw std::invalid_argument("thread: must be below threads (at most 1024)");
  const u32 p = in_range<u32>("points", points, 1);
  if (p > 10000) throw std::invalid_argument("points: must be in 1..10000");
  sysbench::PointStream stream(in_range<u64>("seed", seed, 0), tid, t, in_range<u32>("rows", rows, 1),
                               sysbench::parse_points_distribution(distribution), p);
  std::vector<std::vector<u32>> drawn(in_range<u32>("queries", queries, 0));
  for (auto& query : drawn) query = stream.next();
  return drawn;
}

}  // namespace

void register_key_cache(py::module_& m) {
  m.def("key_cache_points", &points_of, py::kw_only(), py::arg("seed"), py::arg("thread"), py::arg("threads"),
        py::arg("rows"), py::arg("distribution"), py::arg("points"), py::arg("queries"),
        "E2: the points of a client thread's first queries, as the model draws them "
        "(the workload definition shared with the real MariaDB's sysbench script).");
  m.def("key_cache_build_table", &build_table, py::kw_only(), py::arg("directory"), py::arg("rows"),
        py::arg("seed") = 1, py::arg("block_size") = 1024, py::arg("distribution") = "id",
        "E2: write sysbench's sbtest (sbtest.MYD rows, sbtest.MYI indexes) into an existing directory.");
  m.def(
      "key_cache_latches",
      [] {
        std::vector<std::string> names(keycache::kLatchNames.begin(), keycache::kLatchNames.end());
        return names;
      },
      "E2: the segment mutexes a run can choose, MariaDB's (adaptive) first.");
  m.def(
      "key_cache_modes",
      [] {
        std::vector<std::string> names(keycache_driver::kModeNames.begin(), keycache_driver::kModeNames.end());
        return names;
      },
      "E2: how the clients reach the key cache, the default (client_server: MariaDB's shape) first.");
  m.def("key_cache_table_info", &table_info, py::kw_only(), py::arg("directory"),
        "E2: the metadata of the sbtest table in a directory.");
  m.def("key_cache_run", &run,
        "key_cache_run(**settings): select_random_points per (threads, points) cell, each segments value in turn "
        "(rotated per repeat). Settings are named as key_cache_config_fields() lists them; table_dir is needed.");
  // The table's directory aside: a config is checked before its table is built.
  bindings::def_config<keycache_driver::KeyCacheRunConfig>(
      m, "key_cache_config", keycache_driver::key_cache_fields(), keycache_driver::validate_settings,
      "E2's model run (engine/src/driver/key_cache/fields.hpp)");
}
