#pragma once
// E2's timed runs: select_random_points from T client threads against the
// key cache, for each (threads, points) cell and each key_cache_segments
// value, the segment settings interleaved per cell (off, 32, 64, then the next
// cell; the order rotated by one per repeat), as the real MariaDB's runner
// does (bindings/dbrepro/key_cache_mariadb.py). As there, each run starts
// from a repartitioned, empty cache (SET GLOBAL key_cache_segments) loaded
// with the index (LOAD INDEX INTO CACHE): one key cache at a time, a
// configuration of the engine's one page cache. A cell: a warm-up, then a
// timed window measuring the queries
// whose replies arrive inside it (queries/s), latency percentiles and the
// cache's counters. How the clients reach the cache is the mode
// (driver/key_cache/clients.hpp): over a Unix socket to one server thread
// per connection with the clients in a second process (client_server, the
// default: MariaDB and sysbench), the same with the clients in this process
// (client_server_in_process), or by calling the cache directly (direct).
#include <array>
#include <string>
#include <vector>

#include "buffer/cache_stats.hpp"
#include "common/types.hpp"
#include "keycache/key_cache.hpp"
#include "sysbench/distribution.hpp"

namespace dbrepro::keycache_driver {

inline constexpr std::array<const char*, 3> kModeNames = {"client_server", "client_server_in_process", "direct"};

struct KeyCacheRunConfig {
  std::string table_dir;
  std::vector<u32> segments{0};  // key_cache_segments values, each run in turn in every cell
  u32 repeat = 1;                // which repeat: the segments' order is rotated by repeat - 1
  std::string mode = "client_server";
  u64 buffer_bytes = 0;  // 0 = sized from index_fraction
  // With buffer_bytes = 0: 1 = the whole index fits (the article's 512 MB
  // for 313 MB; sized with slack for the uneven spread over segments); below
  // 1, that share of the index, so that queries miss and read the file.
  double index_fraction = 1.0;
  u32 division_limit = 100;
  u32 age_threshold = 300;
  keycache::Replacement replacement = keycache::Replacement::kMidpoint;
  std::string latch = "adaptive";  // the segment mutex: adaptive (MariaDB's), futex or spin
  std::vector<u32> threads{1};
  std::vector<u32> points{10};
  // How each client thread draws its points (sysbench/point_stream.hpp), one cell each.
  std::vector<sysbench::KeyDistribution> distributions{sysbench::KeyDistribution::kSpecial};
  double warmup_seconds = 0.2;
  double seconds = 0.5;
  u64 seed = 1;
};

struct KeyCacheCell {
  u32 segments = 0;  // key_cache_segments of this run
  u32 threads = 0;
  u32 points = 0;
  sysbench::KeyDistribution distribution = sysbench::KeyDistribution::kSpecial;  // of the points
  double index_fraction = 1;   // the run's cache size as a share of the index (with buffer_bytes 0)
  u32 segment_count = 0;       // the cache's partitions (off: 1)
  u32 blocks_per_segment = 0;
  u64 buffer_bytes = 0;
  u64 queries = 0;  // replies that arrived inside the window
  u64 rows = 0;
  double elapsed_seconds = 0;
  double cpu_seconds = 0;  // this process's CPU time over the timed window (the server, and in-process clients)
  double queries_per_second = 0;
  double latency_us_p50 = 0, latency_us_p95 = 0, latency_us_p99 = 0, latency_us_max = 0;
  CacheStats counters;  // timed window only
  keycache::HoldStats holds;       // the segment mutexes' holding, timed window only
  u64 involuntary_switches = 0;    // this process's, over the timed window (getrusage)
  u64 voluntary_switches = 0;
  u64 connections = 0;  // client/server: connections the server accepted for this run, a thread each
  // client_server: the client process's CPU time and context switches over the window.
  double client_cpu_seconds = 0;
  u64 client_involuntary_switches = 0;
  u64 client_voluntary_switches = 0;
};

struct KeyCacheRunResult {
  u64 rows = 0;
  u32 block_size = 0;
  u32 index_blocks = 0;
  std::string latch;
  std::string mode;
  std::vector<u32> order;  // the segments values in the order each cell ran them
  std::vector<KeyCacheCell> cells;  // in run order: per (threads, points), each segments value in `order`
};

// Every setting a run checks; validate_settings leaves out the table's
// directory (a config checked before its table is built).
void validate(const KeyCacheRunConfig& config);
void validate_settings(const KeyCacheRunConfig& config);
// The segments values in the order repeat `repeat` runs them in every cell.
std::vector<u32> interleaved_order(const std::vector<u32>& segments, u32 repeat);
KeyCacheRunResult run_key_cache(const KeyCacheRunConfig& config);

}  // namespace dbrepro::keycache_driver
