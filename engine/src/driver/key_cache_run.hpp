#pragma once
// E2's timed runs: select_random_points on T real OS threads against one
// key-cache configuration, for each (threads, points) cell: a warm-up, then a
// timed window measuring the queries completed inside it (queries/s),
// latency percentiles and the cache's counters.
#include <string>
#include <vector>

#include "buffer/cache_stats.hpp"
#include "common/types.hpp"
#include "keycache/key_cache.hpp"

namespace dbrepro::keycache_driver {

struct KeyCacheRunConfig {
  std::string table_dir;
  u32 segments = 0;
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
  double warmup_seconds = 0.2;
  double seconds = 0.5;
  u64 seed = 1;
};

struct KeyCacheCell {
  u32 threads = 0;
  u32 points = 0;
  u64 queries = 0;
  u64 rows = 0;
  double elapsed_seconds = 0;
  double cpu_seconds = 0;  // process CPU time over the timed run
  double queries_per_second = 0;
  double latency_us_p50 = 0, latency_us_p95 = 0, latency_us_p99 = 0, latency_us_max = 0;
  CacheStats counters;  // timed window only
  keycache::HoldStats holds;       // the segment mutexes' holding, timed window only
  u64 involuntary_switches = 0;    // the process's, over the timed window (getrusage)
  u64 voluntary_switches = 0;
};

struct KeyCacheRunResult {
  u64 rows = 0;
  u32 block_size = 0;
  u32 index_blocks = 0;
  u64 buffer_bytes = 0;
  u32 segment_count = 0;
  u32 blocks_per_segment = 0;
  std::string latch;
  std::vector<KeyCacheCell> cells;
};

void validate(const KeyCacheRunConfig& config);
KeyCacheRunResult run_key_cache(const KeyCacheRunConfig& config);

}  // namespace dbrepro::keycache_driver
