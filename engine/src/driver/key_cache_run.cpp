#include "driver/key_cache_run.hpp"

#include <sys/resource.h>

#include <ctime>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <stdexcept>
#include <thread>

#include "driver/key_cache_latency.hpp"
#include "sysbench/select_random_points.hpp"

namespace dbrepro::keycache_driver {

namespace {
using Clock = std::chrono::steady_clock;

double process_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + ts.tv_nsec * 1e-9;
}

rusage process_usage() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage;
}

// One phase of a cell: every thread runs queries until `stop`; returns when all have.
struct Worker {
  LatencyHistogram latency;
  u64 queries = 0;
  u64 rows = 0;
};

template <class Cache>
KeyCacheCell run_cell(const sysbench::SbtestTable& table, Cache& cache, const KeyCacheRunConfig& config, u32 threads,
                      u32 points) {
  std::atomic<int> phase{0};  // 0 = warm-up, 1 = timed window, 2 = stop
  std::atomic<u32> ready{0};
  std::vector<Worker> workers(threads);
  std::vector<std::thread> pool;
  for (u32 t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      Random rng(config.seed * 7919 + u64{threads} * 131 + points * 17 + t);
      sysbench::PointSelect<Cache> query(table, cache);
      Worker& w = workers[t];
      ready.fetch_add(1);
      while (phase.load(std::memory_order_relaxed) != 2) {
        const auto start = Clock::now();
        const auto result = query.select_random_points(rng, points);
        const auto end = Clock::now();
        // Counted when completed inside the window (sysbench counts a query
        // when it returns), whenever it began.
        if (phase.load(std::memory_order_relaxed) == 1) {
          w.latency.add(static_cast<u64>(std::chrono::duration_cast<std::chrono::nanoseconds>(end - start).count()));
          ++w.queries;
          w.rows += result.rows;
        }
      }
    });
  }
  while (ready.load() < threads) std::this_thread::yield();
  std::this_thread::sleep_for(std::chrono::duration<double>(config.warmup_seconds));
  cache.reset_counters();
  const double cpu_before = process_cpu_seconds();
  const rusage usage_before = process_usage();
  const auto start = Clock::now();
  phase.store(1);
  std::this_thread::sleep_for(std::chrono::duration<double>(config.seconds));
  phase.store(2);
  const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  const rusage usage_after = process_usage();
  const keycache::HoldStats holds = cache.hold_stats();
  const auto counters = cache.counters();
  for (auto& thread : pool) thread.join();

  KeyCacheCell cell;
  cell.threads = threads;
  cell.points = points;
  LatencyHistogram all;
  for (const auto& w : workers) {
    all.merge(w.latency);
    cell.queries += w.queries;
    cell.rows += w.rows;
  }
  cell.elapsed_seconds = elapsed;
  cell.cpu_seconds = process_cpu_seconds() - cpu_before;
  cell.queries_per_second = cell.queries / elapsed;
  cell.latency_us_p50 = all.quantile(0.50) / 1e3;
  cell.latency_us_p95 = all.quantile(0.95) / 1e3;
  cell.latency_us_p99 = all.quantile(0.99) / 1e3;
  cell.latency_us_max = static_cast<double>(all.max()) / 1e3;
  cell.counters = counters;
  cell.holds = holds;
  cell.involuntary_switches = static_cast<u64>(usage_after.ru_nivcsw - usage_before.ru_nivcsw);
  cell.voluntary_switches = static_cast<u64>(usage_after.ru_nvcsw - usage_before.ru_nvcsw);
  return cell;
}
}  // namespace

void validate(const KeyCacheRunConfig& config) {
  if (config.table_dir.empty()) throw std::invalid_argument("table_dir: must name a directory holding sbtest");
  if (config.threads.empty()) throw std::invalid_argument("threads: must list at least one thread count");
  for (u32 t : config.threads)
    if (t < 1 || t > 1024) throw std::invalid_argument("threads: each must be in 1..1024, got " + std::to_string(t));
  if (config.points.empty()) throw std::invalid_argument("points: must list at least one P");
  for (u32 p : config.points)
    if (p < 1 || p > 10000) throw std::invalid_argument("points: each must be in 1..10000, got " + std::to_string(p));
  if (!(config.seconds > 0)) throw std::invalid_argument("seconds: must be > 0");
  if (!(config.warmup_seconds >= 0)) throw std::invalid_argument("warmup_seconds: must be >= 0");
  if (!(config.index_fraction > 0 && config.index_fraction <= 1))
    throw std::invalid_argument("index_fraction: must be in (0, 1]");
  keycache::with_latch(config.latch, [](auto) {});  // names the choices if it is none of them
}

KeyCacheRunResult run_key_cache(const KeyCacheRunConfig& config) {
  validate(config);
  const sysbench::SbtestTable table(config.table_dir);
  keycache::KeyCacheConfig cache_config;
  cache_config.block_size = table.meta().block_size;
  cache_config.segments = config.segments;
  cache_config.division_limit = config.division_limit;
  cache_config.age_threshold = config.age_threshold;
  cache_config.replacement = config.replacement;
  // Auto size: the whole index plus slack for the uneven spread over
  // segments, or a share of the index (at least 8 blocks per segment).
  const u64 segments = config.segments == 0 ? 1 : config.segments;
  const u64 index_blocks = table.meta().index_blocks;
  const u64 blocks = config.index_fraction >= 1
                         ? index_blocks * 5 / 4 + 16 * segments
                         : std::max<u64>(8 * segments, static_cast<u64>(static_cast<double>(index_blocks) *
                                                                        config.index_fraction));
  cache_config.buffer_bytes = config.buffer_bytes != 0 ? config.buffer_bytes : blocks * table.meta().block_size;
  return keycache::with_latch(config.latch, [&]<class Latch>(std::type_identity<Latch>) {
    keycache::KeyCache<Latch> cache(cache_config);
    cache.attach(sysbench::SbtestTable::kIndexFileId, table.index_file());
    KeyCacheRunResult result;
    result.rows = table.meta().rows;
    result.block_size = table.meta().block_size;
    result.index_blocks = table.meta().index_blocks;
    result.buffer_bytes = cache_config.buffer_bytes;
    result.segment_count = cache.segment_count();
    result.blocks_per_segment = cache.blocks_per_segment();
    result.latch = Latch::kName;
    for (u32 threads : config.threads)
      for (u32 points : config.points) result.cells.push_back(run_cell(table, cache, config, threads, points));
    return result;
  });
}

}  // namespace dbrepro::keycache_driver
