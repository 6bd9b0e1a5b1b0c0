// E2's table and query: every segment count returns the same rows.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "driver/key_cache_run.hpp"
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

// Reference answer: scan every row.
PointsResult brute_force(const SbtestTable& table, const std::vector<u32>& points) {
  PointsResult r;
  std::vector<u32> sorted(points);
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  for (u64 id = 1; id <= table.meta().rows; ++id) {
    SbtestRow row;
    table.read_row(static_cast<u32>(id - 1), &row);
    if (std::binary_search(sorted.begin(), sorted.end(), row.k)) ++r.rows;
  }
  return r;
}
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
  EXPECT_GT(table.meta().k_index.height, 1u);
  keycache::KeyCacheConfig config;
  config.buffer_bytes = 256 * 1024;
  keycache::KeyCache cache(config);
  QueryScratch scratch(1024);
  // 2500 lies in the special distribution's hot band: many rows share it.
  const std::vector<u32> points{1, 17, 17, 250, 2500, 2510, 4999, 5000};
  const PointsResult got = select_points(table, cache, points, scratch);
  EXPECT_EQ(got.rows, brute_force(table, points).rows);
  EXPECT_GT(got.rows, 10u);
}

TEST(KeyCacheSbtest, EverySegmentCountReturnsTheSameRows) {
  TempTable t(20000);
  SbtestTable table(t.dir);
  Random draw(3);
  std::vector<std::vector<u32>> queries(200);
  for (auto& q : queries)
    for (int i = 0; i < 10; ++i) q.push_back(draw_key(draw, KeyDistribution::kSpecial, 20000));
  std::vector<PointsResult> reference;
  for (u32 segments : {0u, 1u, 2u, 7u, 32u, 64u}) {
    keycache::KeyCacheConfig config;
    config.segments = segments;
    config.buffer_bytes = 64 * 1024 * 16;  // smaller than the index: evictions too
    keycache::KeyCache cache(config);
    QueryScratch scratch(1024);
    for (size_t i = 0; i < queries.size(); ++i) {
      const PointsResult r = select_points(table, cache, queries[i], scratch);
      if (segments == 0) {
        reference.push_back(r);
      } else {
        EXPECT_EQ(r.rows, reference[i].rows) << "segments " << segments << " query " << i;
        EXPECT_EQ(r.checksum, reference[i].checksum) << "segments " << segments << " query " << i;
      }
    }
  }
}

TEST(KeyCacheRun, MeasuresEveryCell) {
  // Uniform keys: short queries, so even a loaded machine fits many in the window.
  TempTable t(3000, KeyDistribution::kUniform);
  keycache_driver::KeyCacheRunConfig config;
  config.table_dir = t.dir;
  config.segments = 4;
  config.threads = {1, 2};
  config.points = {10};
  config.warmup_seconds = 0.02;
  config.seconds = 0.2;
  const auto result = keycache_driver::run_key_cache(config);
  ASSERT_EQ(result.cells.size(), 2u);
  for (const auto& cell : result.cells) {
    EXPECT_GT(cell.queries, 0u);
    EXPECT_GT(cell.queries_per_second, 0.0);
    EXPECT_GT(cell.counters.hits, 0u);
    EXPECT_LE(cell.latency_us_p50, cell.latency_us_p99);
  }
  EXPECT_EQ(result.segment_count, 4u);
}

TEST(KeyCacheRun, RejectsBadConfig) {
  keycache_driver::KeyCacheRunConfig config;
  config.table_dir = "x";
  config.threads = {};
  EXPECT_THROW(keycache_driver::validate(config), std::invalid_argument);
}
