// E2's key cache: MariaDB's segment mapping, the midpoint-insertion LRU rules,
// and the counters.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "keycache/key_cache.hpp"
#include "keycache/midpoint_lru.hpp"

using namespace dbrepro;
using namespace dbrepro::keycache;

TEST(KeyCacheSegments, MapsBlocksAsMariaDb) {
  EXPECT_EQ(segment_of(1, 0, 0), 0u);
  EXPECT_EQ(segment_of(1, 12345, 0), 0u);  // off: one cache
  EXPECT_EQ(segment_of(0, 5, 32), 5u);
  EXPECT_EQ(segment_of(1, 5, 32), 6u);
  EXPECT_EQ(segment_of(1, 63, 64), 0u);
  EXPECT_EQ(segment_of(3, 100, 7), (3u + 100u) % 7u);
}

TEST(KeyCacheLru, PromotesAfterThreeHits) {
  MidpointLru lru(10, 50, 300, Replacement::kMidpoint);
  lru.inserted(0);
  lru.inserted(1);
  EXPECT_EQ(lru.temperature(0), Temperature::kWarm);
  lru.hit(0);
  lru.hit(0);
  EXPECT_EQ(lru.temperature(0), Temperature::kWarm);
  lru.hit(0);
  EXPECT_EQ(lru.temperature(0), Temperature::kHot);
  EXPECT_EQ(lru.hot_blocks(), 1u);
  EXPECT_EQ(lru.victim(), 1u);  // victims come from the warm chain
}

TEST(KeyCacheLru, DivisionLimitKeepsWarmBlocks) {
  MidpointLru lru(4, 50, 300, Replacement::kMidpoint);  // at most 2 hot
  for (u32 s = 0; s < 4; ++s) lru.inserted(s);
  for (u32 s = 0; s < 4; ++s)
    for (int i = 0; i < 3; ++i) lru.hit(s);
  EXPECT_EQ(lru.hot_blocks(), 2u);
  EXPECT_EQ(lru.warm_blocks(), 2u);
}

TEST(KeyCacheLru, DefaultDivisionLimitIsPlainLru) {
  MidpointLru lru(4, 100, 300, Replacement::kMidpoint);
  for (u32 s = 0; s < 4; ++s) lru.inserted(s);
  for (int i = 0; i < 5; ++i) lru.hit(0);
  EXPECT_EQ(lru.hot_blocks(), 0u);
  EXPECT_EQ(lru.victim(), 1u);  // least recently used
}

TEST(KeyCacheLru, DemotesHotBlockByAge) {
  MidpointLru lru(10, 50, 100, Replacement::kMidpoint);  // age limit: 10 hits
  lru.inserted(0);
  lru.inserted(1);
  for (int i = 0; i < 3; ++i) lru.hit(0);
  ASSERT_EQ(lru.temperature(0), Temperature::kHot);
  for (int i = 0; i < 10; ++i) lru.hit(1);
  EXPECT_EQ(lru.temperature(0), Temperature::kHot);  // exactly at the limit
  lru.hit(1);
  EXPECT_EQ(lru.temperature(0), Temperature::kWarm);
}

TEST(KeyCacheLru, PlainLruNeverPromotes) {
  MidpointLru lru(4, 50, 300, Replacement::kLru);
  lru.inserted(0);
  lru.inserted(1);
  for (int i = 0; i < 10; ++i) lru.hit(0);
  EXPECT_EQ(lru.hot_blocks(), 0u);
  EXPECT_EQ(lru.victim(), 1u);
}

namespace {
struct TempIndexFile {
  std::string path;
  BlockFile file;
  explicit TempIndexFile(u64 blocks)
      : path((std::filesystem::temp_directory_path() / ("kc_test_" + std::to_string(::getpid()) + ".MYI")).string()),
        file(path, 1024, true) {
    std::vector<std::byte> block(1024);
    for (u64 b = 0; b < blocks; ++b) {
      std::fill(block.begin(), block.end(), static_cast<std::byte>(b & 0xFF));
      file.write(b, block.data());
    }
  }
  ~TempIndexFile() { std::remove(path.c_str()); }
};
}  // namespace

TEST(KeyCacheCounters, CountsHitsMissesAndEvicts) {
  TempIndexFile index(40);
  KeyCacheConfig config;
  config.buffer_bytes = 16 * 1024;  // 16 blocks, one segment
  KeyCache cache(config);
  std::vector<std::byte> out(1024);
  for (u64 b = 0; b < 10; ++b) cache.read(index.file, 1, b, out.data());
  for (u64 b = 0; b < 10; ++b) {
    cache.read(index.file, 1, b, out.data());
    EXPECT_EQ(out[7], static_cast<std::byte>(b));
  }
  auto c = cache.counters();
  EXPECT_EQ(c.misses, 10u);
  EXPECT_EQ(c.hits, 10u);
  EXPECT_EQ(c.mutex_waits, 0u);
  for (u64 b = 10; b < 40; ++b) cache.read(index.file, 1, b, out.data());  // evicts
  cache.read(index.file, 1, 0, out.data());
  EXPECT_EQ(out[0], std::byte{0});
  EXPECT_EQ(cache.counters().misses, 41u);
  cache.reset_counters();
  EXPECT_EQ(cache.counters().hits + cache.counters().misses, 0u);
}

TEST(KeyCacheCounters, SegmentsSplitTheBlocks) {
  TempIndexFile index(64);
  KeyCacheConfig config;
  config.buffer_bytes = 128 * 1024;
  config.segments = 4;
  KeyCache cache(config);
  EXPECT_EQ(cache.segment_count(), 4u);
  EXPECT_EQ(cache.blocks_per_segment(), 32u);
  std::vector<std::byte> out(1024);
  for (u64 b = 0; b < 64; ++b) cache.read(index.file, 1, b, out.data());
  for (const auto& c : cache.segment_counters()) EXPECT_EQ(c.misses, 16u);
}

TEST(KeyCacheCounters, ContentionShowsAsMutexWaits) {
  TempIndexFile index(8);
  KeyCacheConfig config;
  config.buffer_bytes = 64 * 1024;
  KeyCache cache(config);
  // Every thread reads for 100 ms from a common start: on any machine with
  // two cores, or one that preempts, they collide on the one mutex.
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  std::atomic<u64> reads{0};
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      std::vector<std::byte> out(1024);
      while (!go.load()) std::this_thread::yield();
      const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(100);
      u64 n = 0;
      while (std::chrono::steady_clock::now() < end) cache.read(index.file, 1, n++ % 8, out.data());
      reads += n;
    });
  go = true;
  for (auto& t : threads) t.join();
  const auto c = cache.counters();
  EXPECT_EQ(c.hits + c.misses, reads.load());
  EXPECT_GT(c.mutex_waits, 0u);
}
