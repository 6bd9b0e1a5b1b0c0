// E2's table and query: every configuration returns the same rows, the
// rows a scan of the table finds and the rows E2 gave before its migration.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <map>
#include <thread>
#include <string>
#include <vector>

#include "driver/key_cache/run.hpp"
#include "sysbench/select_random_points.hpp"

using namespace dbrepro;
using namespace dbrepro::sysbench;

namespace {
struct TempTable {
  std::string dir;
  SbtestMeta meta;
  explicit TempTable(u64 rows, KeyDistribution distribution = KeyDistribution::kSpecial) {
    dir = (std::filesystem::temp_directory_path() / ("kc_sbtest_" + std::to_string(::getpid()))).string();
    std::filesystem::create_directories(dir);
    meta = build_sbtest(dir, rows, 7, 1024, distribution);
  }
  ~TempTable() { std::filesystem::remove_all(dir); }
};

// Reference answer from a scan of every row: per k, its rows and their digests.
class BruteForce {
 public:
  explicit BruteForce(const SbtestTable& table) {
    for (u64 id = 1; id <= table.meta().rows; ++id) {
      SbtestRow row;
      table.read_row(static_cast<u32>(id - 1), &row);
      PointsResult& r = by_k_[row.k];
      ++r.rows;
      r.checksum += row_digest(row);
    }
  }
  PointsResult answer(const std::vector<u32>& points) const {
    std::vector<u32> sorted(points);
    std::sort(sorted.begin(), sorted.end());
    sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
    PointsResult total;
    for (u32 k : sorted)
      if (auto it = by_k_.find(k); it != by_k_.end()) {
        total.rows += it->second.rows;
        total.checksum += it->second.checksum;
      }
    return total;
  }

 private:
  std::map<u32, PointsResult> by_k_;
};

std::vector<std::vector<u32>> draw_queries(u64 seed, int count, u64 rows, KeyDistribution distribution) {
  Random draw(seed);
  std::vector<std::vector<u32>> queries(count);
  for (auto& q : queries)
    for (int i = 0; i < 10; ++i) q.push_back(draw_key(draw, distribution, rows));
  return queries;
}

template <class Latch>
struct AttachedCache {
  keycache::KeyCache<Latch> cache;
  AttachedCache(const SbtestTable& table, u32 segments, u64 buffer_bytes)
      : cache(config(segments, buffer_bytes)) {
    cache.attach(SbtestTable::kIndexFileId, table.index_file());
  }
  static keycache::KeyCacheConfig config(u32 segments, u64 buffer_bytes) {
    keycache::KeyCacheConfig c;
    c.segments = segments;
    c.buffer_bytes = buffer_bytes;
    return c;
  }
};
}  // namespace

TEST(KeyCacheSbtest, RowsLookLikeSysbench) {
  const SbtestRow row = make_row(5, 1000, 1, KeyDistribution::kUniform);
  EXPECT_EQ(row.id, 5u);
  EXPECT_GE(row.k, 1u);
  EXPECT_LE(row.k, 1000u);
  EXPECT_EQ(row.c[11], '-');
  EXPECT_TRUE(row.c[118] >= '0' && row.c[118] <= '9');
  EXPECT_EQ(row.c[119], ' ');  // 119 characters, space padded to CHAR(120)
  EXPECT_TRUE(row.pad[58] >= '0' && row.pad[58] <= '9');
  EXPECT_EQ(row.pad[59], ' ');
}

// sysbench's "special" distribution: three values in four in the middle 1%
// band, the rest a bell curve over the whole range.
TEST(KeyCacheSbtest, SpecialDistributionPutsThreeQuartersInTheMiddleBand) {
  Random rng(5);
  const u64 n = 1000000;
  const u64 band_lo = 1 + n / 2 - n / 200, band_hi = band_lo + n / 100 - 1;
  u64 in_band = 0, below_quarter = 0, draws = 200000;
  for (u64 i = 0; i < draws; ++i) {
    const u32 v = draw_key(rng, KeyDistribution::kSpecial, n);
    ASSERT_GE(v, 1u);
    ASSERT_LE(v, n);
    in_band += (v >= band_lo && v <= band_hi) ? 1 : 0;
    below_quarter += v < n / 4 ? 1 : 0;
  }
  // 75% in the band, plus the bell curve's share of it: the curve's sigma is
  // n/12, so the band holds 0.01 * 12 / sqrt(2 pi) = 4.8% of the other 25%.
  EXPECT_NEAR(static_cast<double>(in_band) / draws, 0.75 + 0.25 * 0.048, 0.005);
  // The mean of 12 uniforms has a standard deviation of n/12: almost nothing
  // lies beyond three of them from the middle.
  EXPECT_LT(static_cast<double>(below_quarter) / draws, 0.001);
  EXPECT_EQ(parse_distribution("uniform"), KeyDistribution::kUniform);
  EXPECT_THROW(parse_distribution("zipf"), std::invalid_argument);
}

TEST(KeyCacheSbtest, TableRecordsItsDistribution) {
  TempTable uniform(2000, KeyDistribution::kUniform);
  EXPECT_EQ(SbtestTable(uniform.dir).meta().distribution, KeyDistribution::kUniform);
}

TEST(KeyCacheSbtest, IndexFindsEveryMatchingRow) {
  TempTable t(5000);
  SbtestTable table(t.dir);
  EXPECT_GT(table.meta().k_index.height, 1);
  EXPECT_EQ(table.meta().k_index.size, 5000u);
  AttachedCache<AdaptiveMutex> c(table, 0, 256 * 1024);
  PointSelect query(table, c.cache);
  // 2500 lies in the special distribution's hot band: many rows share it.
  const std::vector<u32> points{1, 17, 17, 250, 2500, 2510, 4999, 5000};
  const PointsResult got = query.select_points(points);
  const PointsResult expected = BruteForce(table).answer(points);
  EXPECT_EQ(got.rows, expected.rows);
  EXPECT_EQ(got.checksum, expected.checksum);
  EXPECT_GT(got.rows, 10u);
}

// The rows E2 returned before its index and cache moved onto the engine's
// B-tree and page cache (the same table, the same 300 queries): the sums of
// rows and digests that the former index_btree and keycache::KeyCache gave.
TEST(KeyCacheSbtest, SameRowsAsBeforeTheMigration) {
  struct Golden {
    KeyDistribution distribution;
    u64 rows, checksum;
  };
  for (const Golden g : {Golden{KeyDistribution::kSpecial, 173766, 12946994368057991569ull},
                         Golden{KeyDistribution::kUniform, 3004, 5070497700054665665ull}}) {
    TempTable t(20000, g.distribution);
    SbtestTable table(t.dir);
    for (u32 segments : {0u, 64u}) {
      AttachedCache<AdaptiveMutex> c(table, segments, 64 * 1024 * 16);  // smaller than the index: evictions too
      PointSelect query(table, c.cache);
      PointsResult sum;
      for (const auto& q : draw_queries(3, 300, 20000, g.distribution)) {
        const PointsResult r = query.select_points(q);
        sum.rows += r.rows;
        sum.checksum += r.checksum;
      }
      EXPECT_EQ(sum.rows, g.rows) << distribution_name(g.distribution) << " segments " << segments;
      EXPECT_EQ(sum.checksum, g.checksum) << distribution_name(g.distribution) << " segments " << segments;
    }
  }
}

// Every configuration E2 runs (segments, segment mutex, a cache that holds
// the index or a half, a quarter, or a sliver of it) returns the rows a scan
// of the table finds, from several threads at once.
template <class Latch>
class KeyCacheConfigurations : public ::testing::Test {};
using Latches = ::testing::Types<AdaptiveMutex, PlainMutex, keycache::SpinMutex>;
TYPED_TEST_SUITE(KeyCacheConfigurations, Latches);

TYPED_TEST(KeyCacheConfigurations, EveryConfigurationReturnsTheSameRows) {
  TempTable t(20000);
  SbtestTable table(t.dir);
  const BruteForce reference(table);
  const auto queries = draw_queries(5, 24, 20000, KeyDistribution::kSpecial);
  const u64 index_bytes = u64{table.meta().index_blocks} * 1024;
  for (u32 segments : {0u, 1u, 2u, 7u, 32u, 64u}) {
    for (u64 buffer : {index_bytes * 5 / 4, index_bytes / 2, index_bytes / 4, u64{8} * 1024 * std::max(1u, segments)}) {
      buffer = std::max<u64>(buffer, u64{8} * 1024 * std::max(1u, segments));
      AttachedCache<TypeParam> c(table, segments, buffer);
      std::atomic<int> wrong{0};
      std::vector<std::thread> threads;
      for (int th = 0; th < 3; ++th)
        threads.emplace_back([&, th] {
          PointSelect query(table, c.cache);
          for (size_t i = th; i < queries.size(); i += 2) {
            const PointsResult r = query.select_points(queries[i]);
            const PointsResult e = reference.answer(queries[i]);
            if (r.rows != e.rows || r.checksum != e.checksum) ++wrong;
          }
        });
      for (auto& th : threads) th.join();
      EXPECT_EQ(wrong.load(), 0) << "segments " << segments << " buffer " << buffer;
      const CacheStats s = c.cache.counters();
      EXPECT_EQ(s.reads + s.read_arounds, s.misses) << "every miss reads the file once";
    }
  }
}

TEST(KeyCacheRun, MeasuresEveryCell) {
  // Uniform keys: short queries, so even a loaded machine fits many in the window.
  TempTable t(3000, KeyDistribution::kUniform);
  keycache_driver::KeyCacheRunConfig config;
  config.table_dir = t.dir;
  config.segments = {4};
  config.threads = {1, 2};
  config.points = {10};
  config.warmup_seconds = 0.02;
  config.seconds = 0.2;
  for (const char* mode : keycache_driver::kModeNames) {
    config.mode = mode;
    const auto result = keycache_driver::run_key_cache(config);
    ASSERT_EQ(result.cells.size(), 2u) << mode;
    for (const auto& cell : result.cells) {
      EXPECT_GT(cell.queries, 0u) << mode;
      EXPECT_GT(cell.queries_per_second, 0.0);
      EXPECT_GT(cell.counters.hits, 0u);
      EXPECT_GT(cell.holds.acquisitions, 0u);  // read while the threads stop: not a consistent cut with the hits
      EXPECT_LE(cell.latency_us_p50, cell.latency_us_p99);
      EXPECT_EQ(cell.segment_count, 4u);
      // Client/server: the server accepted one connection per client thread, each served by its own thread.
      EXPECT_EQ(cell.connections, std::string(mode) == "direct" ? 0u : cell.threads) << mode;
    }
    EXPECT_EQ(result.mode, mode);
    EXPECT_EQ(result.latch, "adaptive");  // MariaDB's cache_lock, the default
  }
  EXPECT_EQ(keycache_driver::KeyCacheRunConfig{}.mode, "client_server");  // MariaDB's shape is the default
}

// Every (threads, P) cell runs each segments value in turn, the order rotated
// by one per repeat (as the real MariaDB's runner); each value keeps its cache.
TEST(KeyCacheRun, InterleavesSegmentSettingsPerCell) {
  TempTable t(2000, KeyDistribution::kUniform);
  keycache_driver::KeyCacheRunConfig config;
  config.table_dir = t.dir;
  config.mode = "direct";
  config.segments = {0, 4, 16};
  config.repeat = 2;
  config.threads = {1, 2};
  config.warmup_seconds = 0.01;
  config.seconds = 0.02;
  EXPECT_EQ(keycache_driver::interleaved_order(config.segments, 1), (std::vector<u32>{0, 4, 16}));
  EXPECT_EQ(keycache_driver::interleaved_order(config.segments, 4), (std::vector<u32>{0, 4, 16}));
  const auto result = keycache_driver::run_key_cache(config);
  EXPECT_EQ(result.order, (std::vector<u32>{4, 16, 0}));
  std::vector<u32> ran, threads, partitions;
  for (const auto& cell : result.cells) {
    EXPECT_EQ(cell.counters.misses, 0u) << "each run's cache was loaded with the index before it";
    ran.push_back(cell.segments);
    threads.push_back(cell.threads);
    partitions.push_back(cell.segment_count);
  }
  EXPECT_EQ(ran, (std::vector<u32>{4, 16, 0, 4, 16, 0}));
  EXPECT_EQ(threads, (std::vector<u32>{1, 1, 1, 2, 2, 2}));
  EXPECT_EQ(partitions, (std::vector<u32>{4, 16, 1, 4, 16, 1}));
}

// A key buffer of a quarter of the index: queries miss and read the file.
TEST(KeyCacheRun, ASmallerCacheMissesThroughTheFile) {
  TempTable t(3000, KeyDistribution::kUniform);
  keycache_driver::KeyCacheRunConfig config;
  config.table_dir = t.dir;
  config.segments = {2};
  config.index_fraction = 0.25;
  config.warmup_seconds = 0.02;
  config.seconds = 0.1;
  const auto result = keycache_driver::run_key_cache(config);
  const auto& cell = result.cells.at(0);
  EXPECT_EQ(cell.buffer_bytes, u64{t.meta.index_blocks} / 4 * 1024);
  EXPECT_EQ(cell.index_fraction, 0.25) << "each cell records the cache size it ran with";
  EXPECT_GT(cell.counters.misses, 0u);
  EXPECT_EQ(cell.counters.reads + cell.counters.read_arounds, cell.counters.misses);
}

TEST(KeyCacheRun, RejectsBadConfig) {
  keycache_driver::KeyCacheRunConfig config;
  config.table_dir = "x";
  config.threads = {};
  EXPECT_THROW(keycache_driver::validate(config), std::invalid_argument);
  config.threads = {1};
  config.latch = "ticket";
  EXPECT_THROW(keycache_driver::validate(config), std::invalid_argument);
  config.latch = "adaptive";
  config.index_fraction = 1.5;
  EXPECT_THROW(keycache_driver::validate(config), std::invalid_argument);
  config.index_fraction = 1;
  config.mode = "pipes";
  EXPECT_THROW(keycache_driver::validate(config), std::invalid_argument);
  config.mode = "direct";
  config.segments = {0, 32, 0};
  EXPECT_THROW(keycache_driver::validate(config), std::invalid_argument);
  config.segments = {65};
  EXPECT_THROW(keycache_driver::validate(config), std::invalid_argument);
  config.segments = {0, 32};
  EXPECT_NO_THROW(keycache_driver::validate(config));
}
