#include "driver/key_cache/run.hpp"

#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

#include <ctime>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <memory>
#include <stdexcept>

#include "driver/key_cache/clients.hpp"
#include "sysbench/point_server.hpp"
#include "sysbench/select_random_points.hpp"

namespace dbrepro::keycache_driver {

namespace {

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

// How long after its window a client process may take to report (its last
// queries, then closing its connections) before it counts as hung.
constexpr i64 kClientGraceNs = i64{120} * 1'000'000'000;

// direct: the client thread runs the query on the cache itself.
template <class Cache>
struct DirectQuery {
  sysbench::PointSelect<Cache> select;
  DirectQuery(const sysbench::SbtestTable& table, Cache& cache) : select(table, cache) {}
  u64 operator()(const std::vector<u32>& points) { return select.select_points(points).rows; }
};

// A private folder for the server's socket, removed with it.
struct SocketDir {
  std::string dir;
  SocketDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "dbrepro_kc_XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("cannot create a folder for the server's socket");
    dir = pattern;
  }
  ~SocketDir() {
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
  }
  std::string socket() const { return dir + "/server.sock"; }
};

template <class Cache>
struct Run {
  const KeyCacheRunConfig& config;
  const sysbench::SbtestTable& table;
  ClientProcess* clients;                     // client_server
  sysbench::PointServer<Cache>* server;       // both client/server modes

  KeyCacheCell cell(Cache& cache, u32 segments, u32 threads, u32 points, sysbench::KeyDistribution distribution) {
    ClientCell clients_cell;
    clients_cell.threads = threads;
    clients_cell.points = points;
    clients_cell.seed = config.seed;
    clients_cell.table_rows = table.meta().rows;
    clients_cell.distribution = static_cast<u32>(distribution);
    clients_cell.start_ns = now_ns() + static_cast<i64>(config.warmup_seconds * 1e9);
    clients_cell.end_ns = clients_cell.start_ns + static_cast<i64>(config.seconds * 1e9);

    // The server's side of the window: its counters are reset at the start
    // (the clients are running: the warm-up) and read at the end.
    double cpu_before = 0, cpu_after = 0;
    rusage usage_before{}, usage_after{};
    keycache::HoldStats holds;
    CacheStats counters;
    const std::function<void()> at_start = [&] {
      cache.reset_counters();
      cpu_before = process_cpu_seconds();
      usage_before = process_usage();
    };
    const std::function<void()> at_end = [&] {
      usage_after = process_usage();
      cpu_after = process_cpu_seconds();
      holds = cache.hold_stats();
      counters = cache.counters();
    };

    ClientReport report;
    u64 connections_before = 0;
    if (server != nullptr) {
      server->serve_with(&cache);  // the connections of this run query this cache
      connections_before = server->connections().stats().connections;
    }
    if (server == nullptr) {
      report = run_client_threads(
          clients_cell, [&](u32) { return DirectQuery<Cache>(table, cache); }, at_start, at_end);
    } else if (clients == nullptr) {
      report = run_socket_clients(server->path(), clients_cell, false, at_start, at_end);
    } else {
      clients->start(clients_cell);
      sleep_until_ns(clients_cell.start_ns);
      at_start();
      sleep_until_ns(clients_cell.end_ns);
      at_end();
      report = clients->finish(clients_cell.end_ns + kClientGraceNs);
    }
    if (server != nullptr) server->connections().wait_idle();  // every connection of this run has closed
    if (report.error[0] != '\0') throw std::runtime_error(std::string("key cache clients: ") + report.error);

    KeyCacheCell cell;
    cell.segments = segments;
    cell.threads = threads;
    cell.points = points;
    cell.distribution = distribution;
    cell.index_fraction = config.index_fraction;
    cell.segment_count = cache.segment_count();
    cell.blocks_per_segment = cache.blocks_per_segment();
    cell.buffer_bytes = cache.config().buffer_bytes;
    cell.queries = report.queries;
    cell.rows = report.rows;
    cell.elapsed_seconds = static_cast<double>(clients_cell.end_ns - clients_cell.start_ns) * 1e-9;
    cell.cpu_seconds = cpu_after - cpu_before;
    cell.queries_per_second = static_cast<double>(cell.queries) / cell.elapsed_seconds;
    cell.latency_us_p50 = report.latency.quantile(0.50) / 1e3;
    cell.latency_us_p95 = report.latency.quantile(0.95) / 1e3;
    cell.latency_us_p99 = report.latency.quantile(0.99) / 1e3;
    cell.latency_us_max = static_cast<double>(report.latency.max()) / 1e3;
    cell.counters = counters;
    cell.holds = holds;
    cell.involuntary_switches = static_cast<u64>(usage_after.ru_nivcsw - usage_before.ru_nivcsw);
    cell.voluntary_switches = static_cast<u64>(usage_after.ru_nvcsw - usage_before.ru_nvcsw);
    if (server != nullptr) cell.connections = server->connections().stats().connections - connections_before;
    cell.client_cpu_seconds = report.cpu_seconds;
    cell.client_involuntary_switches = report.involuntary_switches;
    cell.client_voluntary_switches = report.voluntary_switches;
    return cell;
  }
};

keycache::KeyCacheConfig cache_config_for(const KeyCacheRunConfig& config, const sysbench::SbtestTable& table,
                                          u32 segments_value) {
  keycache::KeyCacheConfig cache_config;
  cache_config.block_size = table.meta().block_size;
  cache_config.segments = segments_value;
  cache_config.division_limit = config.division_limit;
  cache_config.age_threshold = config.age_threshold;
  cache_config.replacement = config.replacement;
  // Auto size: the whole index plus slack for the uneven spread over
  // segments, or a share of the index (at least 8 blocks per segment).
  const u64 segments = segments_value == 0 ? 1 : segments_value;
  const u64 index_blocks = table.meta().index_blocks;
  const u64 blocks = config.index_fraction >= 1
                         ? index_blocks * 5 / 4 + 16 * segments
                         : std::max<u64>(8 * segments, static_cast<u64>(static_cast<double>(index_blocks) *
                                                                        config.index_fraction));
  cache_config.buffer_bytes = config.buffer_bytes != 0 ? config.buffer_bytes : blocks * table.meta().block_size;
  return cache_config;
}

}  // namespace

void validate(const KeyCacheRunConfig& config) {
  if (config.table_dir.empty()) throw std::invalid_argument("table_dir: must name a directory holding sbtest");
  validate_settings(config);
}

void validate_settings(const KeyCacheRunConfig& config) {
  if (config.segments.empty()) throw std::invalid_argument("segments: must list at least one value");
  for (size_t i = 0; i < config.segments.size(); ++i) {
    if (config.segments[i] > 64)
      throw std::invalid_argument("segments: each must be in 0..64 (MariaDB's limit), got " +
                                  std::to_string(config.segments[i]));
    if (std::find(config.segments.begin(), config.segments.begin() + static_cast<long>(i), config.segments[i]) !=
        config.segments.begin() + static_cast<long>(i))
      throw std::invalid_argument("segments: " + std::to_string(config.segments[i]) + " is listed twice");
  }
  if (config.repeat < 1) throw std::invalid_argument("repeat: must be >= 1");
  if (std::find(kModeNames.begin(), kModeNames.end(), config.mode) == kModeNames.end())
    throw std::invalid_argument("mode: invalid value '" + config.mode +
                                "' (allowed: client_server, client_server_in_process, direct)");
  if (config.threads.empty()) throw std::invalid_argument("threads: must list at least one thread count");
  for (u32 t : config.threads)
    if (t < 1 || t > 1024) throw std::invalid_argument("threads: each must be in 1..1024, got " + std::to_string(t));
  if (config.points.empty()) throw std::invalid_argument("points: must list at least one P");
  if (config.distributions.empty()) throw std::invalid_argument("distributions: must list at least one");
  for (u32 p : config.points)
    if (p < 1 || p > 10000) throw std::invalid_argument("points: each must be in 1..10000, got " + std::to_string(p));
  if (!(config.seconds > 0)) throw std::invalid_argument("seconds: must be > 0");
  if (!(config.warmup_seconds >= 0)) throw std::invalid_argument("warmup_seconds: must be >= 0");
  if (!(config.index_fraction > 0 && config.index_fraction <= 1))
    throw std::invalid_argument("index_fraction: must be in (0, 1]");
  keycache::with_latch(config.latch, [](auto) {});  // names the choices if it is none of them
}

std::vector<u32> interleaved_order(const std::vector<u32>& segments, u32 repeat) {
  std::vector<u32> order(segments);
  if (!order.empty())
    std::rotate(order.begin(), order.begin() + static_cast<long>((repeat - 1) % order.size()), order.end());
  return order;
}

KeyCacheRunResult run_key_cache(const KeyCacheRunConfig& config) {
  validate(config);
  const sysbench::SbtestTable table(config.table_dir);
  return keycache::with_latch(config.latch, [&]<class Latch>(std::type_identity<Latch>) {
    using Cache = keycache::KeyCache<Latch>;
    const bool client_server = config.mode != "direct";
    std::unique_ptr<SocketDir> socket_dir;
    std::unique_ptr<ClientProcess> clients;
    if (client_server) socket_dir = std::make_unique<SocketDir>();
    // Forked first, while this process has no thread of the run yet.
    if (config.mode == "client_server") clients = std::make_unique<ClientProcess>(socket_dir->socket());
    std::unique_ptr<sysbench::PointServer<Cache>> server;
    if (client_server)
      server = std::make_unique<sysbench::PointServer<Cache>>(table, nullptr, socket_dir->socket());

    KeyCacheRunResult result;
    result.rows = table.meta().rows;
    result.block_size = table.meta().block_size;
    result.index_blocks = table.meta().index_blocks;
    result.latch = Latch::kName;
    result.mode = config.mode;
    result.order = interleaved_order(config.segments, config.repeat);
    Run<Cache> run{config, table, clients.get(), server.get()};
    for (const auto distribution : config.distributions)
    for (u32 threads : config.threads)
      for (u32 points : config.points)
        for (u32 s : result.order) {
          // As MariaDB's SET GLOBAL key_cache_segments: a repartitioned, empty
          // cache, loaded with the index (LOAD INDEX INTO CACHE), one at a time.
          Cache cache(cache_config_for(config, table, s));
          cache.attach(sysbench::SbtestTable::kIndexFileId, table.index_file());
          cache.preload(sysbench::SbtestTable::kIndexFileId, 1, table.meta().index_blocks);
          result.cells.push_back(run.cell(cache, s, threads, points, distribution));
          if (server) server->serve_with(nullptr);  // its connections have closed (the cell waited)
        }
    server.reset();   // its threads first,
    clients.reset();  // then the client process
    return result;
  });
}

}  // namespace dbrepro::keycache_driver
