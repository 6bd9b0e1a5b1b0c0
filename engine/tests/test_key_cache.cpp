// E2's key cache on the one page cache: MariaDB's segment mapping, MyISAM's
// midpoint-insertion LRU as a replacement policy, the counters, the segment
// mutex's waits, and misses read with the mutex released while other readers
// of the block wait for it.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "cache/midpoint_lru.hpp"
#include "cache/policy.hpp"
#include "keycache/key_cache.hpp"

using namespace dbrepro;
using namespace dbrepro::keycache;
using cache::MidpointLru;
using Temperature = MidpointLru::Temperature;

static_assert(cache::ReplacementPolicy<MidpointLru>);

namespace {
MidpointLru midpoint(u32 capacity, u32 division_limit, u32 age_threshold, bool promote = true) {
  return MidpointLru(capacity, {division_limit, age_threshold, promote});
}
u32 victim(MidpointLru& lru) { return lru.evict(cache::claim_any); }
}  // namespace

TEST(KeyCacheLru, PromotesAfterThreeHits) {
  MidpointLru lru = midpoint(10, 50, 300);
  lru.insert(0, 100);
  lru.insert(1, 101);
  EXPECT_EQ(lru.temperature(0), Temperature::kWarm);
  lru.hit(0);
  lru.hit(0);
  EXPECT_EQ(lru.temperature(0), Temperature::kWarm);
  lru.hit(0);
  EXPECT_EQ(lru.temperature(0), Temperature::kHot);
  EXPECT_EQ(lru.hot_blocks(), 1u);
  EXPECT_EQ(victim(lru), 1u);  // victims come from the warm chain
  EXPECT_EQ(victim(lru), 0u);  // then from the hot one
}

TEST(KeyCacheLru, DivisionLimitKeepsWarmBlocks) {
  MidpointLru lru = midpoint(4, 50, 300);  // at most 2 hot
  for (u32 s = 0; s < 4; ++s) lru.insert(s, s);
  for (u32 s = 0; s < 4; ++s)
    for (int i = 0; i < 3; ++i) lru.hit(s);
  EXPECT_EQ(lru.hot_blocks(), 2u);
  EXPECT_EQ(lru.warm_blocks(), 2u);
}

TEST(KeyCacheLru, DefaultDivisionLimitIsPlainLru) {
  MidpointLru lru(4);
  for (u32 s = 0; s < 4; ++s) lru.insert(s, s);
  for (int i = 0; i < 5; ++i) lru.hit(0);
  EXPECT_EQ(lru.hot_blocks(), 0u);
  EXPECT_EQ(victim(lru), 1u);  // least recently used
}

TEST(KeyCacheLru, DemotesHotBlockByAge) {
  MidpointLru lru = midpoint(10, 50, 100);  // age limit: 10 hits
  lru.insert(0, 0);
  lru.insert(1, 1);
  for (int i = 0; i < 3; ++i) lru.hit(0);
  ASSERT_EQ(lru.temperature(0), Temperature::kHot);
  for (int i = 0; i < 10; ++i) lru.hit(1);
  EXPECT_EQ(lru.temperature(0), Temperature::kHot);  // exactly at the limit
  lru.hit(1);
  EXPECT_EQ(lru.temperature(0), Temperature::kWarm);
}

TEST(KeyCacheLru, PlainLruNeverPromotes) {
  MidpointLru lru = midpoint(4, 50, 300, /*promote=*/false);
  lru.insert(0, 0);
  lru.insert(1, 1);
  for (int i = 0; i < 10; ++i) lru.hit(0);
  EXPECT_EQ(lru.hot_blocks(), 0u);
  EXPECT_EQ(victim(lru), 1u);
}

TEST(KeyCacheLru, EvictSkipsBlocksInUse) {
  MidpointLru lru(3);
  for (u32 s = 0; s < 3; ++s) lru.insert(s, s);
  EXPECT_EQ(lru.evict([](u32 s) { return s != 0; }), 1u);  // 0 is the coldest but pinned
  EXPECT_THROW(lru.evict([](u32) { return false; }), std::runtime_error);
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

template <class Latch = AdaptiveMutex>
struct Fixture {
  KeyCache<Latch> cache;
  std::vector<std::byte> out = std::vector<std::byte>(1024);
  Fixture(const KeyCacheConfig& config, const BlockFile& file) : cache(config) { cache.attach(1, file); }
  std::byte read(u64 block) {
    cache.read(1, block, out.data());
    return out[7];
  }
};

KeyCacheConfig config_of(u64 blocks, u32 segments = 0) {
  KeyCacheConfig config;
  config.buffer_bytes = blocks * 1024;
  config.segments = segments;
  return config;
}
}  // namespace

TEST(KeyCacheSegments, MapsBlocksAsMariaDb) {
  TempIndexFile index(1);
  KeyCache<AdaptiveMutex> off(config_of(64, 0));
  EXPECT_EQ(off.segment_count(), 1u);
  EXPECT_EQ(off.segment_of(1, 12345), 0u);  // off: one cache
  KeyCache<AdaptiveMutex> s32(config_of(32 * 8, 32));
  EXPECT_EQ(s32.segment_of(0, 5), 5u);
  EXPECT_EQ(s32.segment_of(1, 5), 6u);
  KeyCache<AdaptiveMutex> s64(config_of(64 * 8, 64));
  EXPECT_EQ(s64.segment_of(1, 63), 0u);
  KeyCache<AdaptiveMutex> s7(config_of(7 * 8, 7));
  EXPECT_EQ(s7.segment_of(3, 100), (3u + 100u) % 7u);
}

TEST(KeyCacheSegments, RejectsWhatMariaDbRejects) {
  KeyCacheConfig config = config_of(64, 65);
  EXPECT_THROW(KeyCache<AdaptiveMutex>{config}, std::invalid_argument);
  EXPECT_THROW(KeyCache<AdaptiveMutex>{config_of(7, 0)}, std::invalid_argument);  // < 8 blocks per segment
  config = config_of(64);
  config.block_size = 1000;
  EXPECT_THROW(KeyCache<AdaptiveMutex>{config}, std::invalid_argument);
  EXPECT_THROW(with_latch("mcs", [](auto) {}), std::invalid_argument);
}

TEST(KeyCacheCounters, CountsHitsMissesAndEvicts) {
  TempIndexFile index(40);
  Fixture f(config_of(16), index.file);  // 16 blocks, one segment
  for (u64 b = 0; b < 10; ++b) f.read(b);
  for (u64 b = 0; b < 10; ++b) EXPECT_EQ(f.read(b), static_cast<std::byte>(b));
  const CacheStats c = f.cache.counters();
  EXPECT_EQ(c.misses, 10u);
  EXPECT_EQ(c.reads, 10u);
  EXPECT_EQ(c.hits, 10u);
  EXPECT_EQ(c.latch_waits, 0u);
  for (u64 b = 10; b < 40; ++b) f.read(b);  // evicts
  EXPECT_EQ(f.read(0), std::byte{0});
  EXPECT_EQ(f.cache.counters().misses, 41u);
  EXPECT_EQ(f.cache.pages().resident_pages(), 16u);
  f.cache.reset_counters();
  EXPECT_EQ(f.cache.counters().hits + f.cache.counters().misses, 0u);
}

TEST(KeyCacheCounters, SegmentsSplitTheBlocks) {
  TempIndexFile index(64);
  Fixture f(config_of(128, 4), index.file);
  EXPECT_EQ(f.cache.segment_count(), 4u);
  EXPECT_EQ(f.cache.blocks_per_segment(), 32u);
  for (u64 b = 0; b < 64; ++b) f.read(b);
  for (const CacheStats& c : f.cache.segment_counters()) EXPECT_EQ(c.misses, 16u);
}

// The midpoint options reach every segment's list: with a division limit
// of 50 %, blocks hit three times turn hot.
TEST(KeyCacheCounters, DivisionLimitReachesTheSegments) {
  TempIndexFile index(16);
  KeyCacheConfig config = config_of(32, 2);
  config.division_limit = 50;
  Fixture f(config, index.file);
  for (int i = 0; i < 4; ++i) f.read(2);
  EXPECT_EQ(f.cache.pages().policy(f.cache.segment_of(1, 2)).hot_blocks(), 1u);
  EXPECT_EQ(f.cache.pages().policy(f.cache.segment_of(1, 3)).hot_blocks(), 0u);
}

// A hit takes the segment mutex twice (pin, then unpin after the copy); a
// reader finding it held is counted, with the time it waited.
template <class Latch>
class KeyCacheLatch : public ::testing::Test {};
using Latches = ::testing::Types<AdaptiveMutex, PlainMutex, SpinMutex>;
TYPED_TEST_SUITE(KeyCacheLatch, Latches);

TYPED_TEST(KeyCacheLatch, WaitsForTheSegmentMutexAreCountedAndTimed) {
  TempIndexFile index(8);
  Fixture<TypeParam> f(config_of(16, 2), index.file);
  f.read(3);
  const u32 segment = f.cache.segment_of(1, 3);
  f.cache.pages().partition_latch(segment).lock();
  std::atomic<bool> done{false};
  std::thread reader([&] {
    std::vector<std::byte> out(1024);
    f.cache.read(1, 3, out.data());
    done = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_FALSE(done.load());  // it cannot get past the held mutex
  f.cache.pages().partition_latch(segment).unlock();
  reader.join();
  const CacheStats c = f.cache.counters();
  EXPECT_EQ(c.latch_waits, 1u);
  EXPECT_GT(c.latch_wait_ns, 0u);
  EXPECT_EQ(f.cache.segment_counters()[segment].latch_waits, 1u);
  EXPECT_EQ(std::string(KeyCache<TypeParam>::kLatchName), TypeParam::kName);
}

// A hit takes the segment mutex twice (find and pin; unpin after the copy),
// a miss three times (look; take a block and mark it being read; unpin), as
// MyISAM's key_cache_read; each hold is timed.
TEST(KeyCacheHolds, AHitTakesTheSegmentMutexTwice) {
  TempIndexFile index(8);
  Fixture f(config_of(16), index.file);
  f.read(1);
  EXPECT_EQ(f.cache.hold_stats().acquisitions, 3u);
  f.cache.reset_counters();
  f.read(1);
  const HoldStats s = f.cache.hold_stats();
  EXPECT_EQ(s.acquisitions, 2u);
  EXPECT_GT(s.held_ns, 0u);
}

// A holder that loses its CPU inside the critical section (here: sleeps)
// shows as a long hold; the reset's own hold is not counted.
TEST(KeyCacheHolds, AHolderOffItsCpuIsALongHold) {
  TimedLatch<PlainMutex> latch;
  latch.lock();
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  latch.unlock();
  const HoldStats s = latch.stats();
  EXPECT_EQ(s.acquisitions, 1u);
  EXPECT_EQ(s.long_holds, 1u);
  EXPECT_GE(s.held_ns, 2'000'000u);
  latch.reset();
  EXPECT_EQ(latch.stats().acquisitions, 0u);
}

// MyISAM's miss: the block is marked being read and the segment mutex is
// released for the pread; a second reader of that block waits for it
// (wait_on_queue) instead of reading it again, and other blocks of the same
// segment are served meanwhile.
namespace {
struct GatedFile {
  std::mutex gate;
  std::atomic<u64> reads{0};
};
struct GatedBacking {
  GatedFile* file = nullptr;
  explicit GatedBacking(u32 = 0) {}
  void read(u64 key, std::byte* out) const {
    std::lock_guard g(file->gate);
    ++file->reads;
    std::memset(out, static_cast<int>(key & 0xFF), 1024);
  }
  void write(u64, const std::byte*) const {}
};
}  // namespace

TEST(KeyCacheMiss, ReadersWaitOnABlockBeingReadAndTheMutexIsFree) {
  GatedFile file;
  KeyCache<AdaptiveMutex, GatedBacking> cache(config_of(16, 1));
  cache.pages().backing().file = &file;
  std::vector<std::byte> out(1024);
  cache.read(1, 1, out.data());  // resident before the gate closes
  file.gate.lock();
  std::thread first([&] {
    std::vector<std::byte> mine(1024);
    cache.read(1, 20, mine.data());
    EXPECT_EQ(mine[9], std::byte{20});
  });
  while (cache.counters().misses < 2) std::this_thread::yield();  // first is in its pread
  std::thread second([&] {
    std::vector<std::byte> mine(1024);
    cache.read(1, 20, mine.data());
    EXPECT_EQ(mine[9], std::byte{20});
  });
  while (cache.counters().inflight_waits < 1) std::this_thread::yield();  // second waits on the block
  cache.read(1, 1, out.data());  // the segment's mutex is not held across the read
  EXPECT_EQ(out[9], std::byte{1});
  file.gate.unlock();
  first.join();
  second.join();
  EXPECT_EQ(file.reads.load(), 2u);  // blocks 1 and 20, each read once
  EXPECT_EQ(cache.counters().inflight_waits, 1u);
}
