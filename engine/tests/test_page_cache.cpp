// The page cache's mechanisms, shown deterministically: partitions and their
// replacement state, pins that keep a frame, the miss path that releases the
// partition latch during the read while others wait on the in-flight frame,
// read-around, optimistic re-fix by version, and the counters.
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "buffer/page_cache.hpp"
#include "cache/clock.hpp"
#include "cache/lru.hpp"
#include "cache/midpoint_lru.hpp"
#include "latch/blocking_latches.hpp"

namespace dbrepro {
namespace {

constexpr u32 kPage = 512;

// Pages in memory; page k holds k in its first 8 bytes. A read may be held
// at a gate so that a test can look at the cache while it is in flight.
struct MemoryFile {
  std::vector<std::vector<std::byte>> pages;
  std::atomic<u64> reads{0}, writes{0};
  std::mutex gate;
  explicit MemoryFile(u64 n) : pages(n, std::vector<std::byte>(kPage)) {
    for (u64 k = 0; k < n; ++k) std::memcpy(pages[k].data(), &k, sizeof k);
  }
};
struct MemoryBacking {
  MemoryFile* file;
  void read(u64 key, std::byte* out) const {
    std::lock_guard g(file->gate);
    if (key >= file->pages.size()) throw std::out_of_range("no such page");
    ++file->reads;
    std::memcpy(out, file->pages[key].data(), kPage);
  }
  void write(u64 key, const std::byte* in) const {
    ++file->writes;
    std::memcpy(file->pages[key].data(), in, kPage);
  }
};

template <bool kPerPartition, class Policy = cache::Lru>
struct TestConfig {
  using PartitionLatch = AdaptiveMutex;
  using ReplacementLatch = SpinLatch;
  using FrameLatch = RwLatch;
  using Replacement = Policy;
  using Partitioning = HashPartitioning;
  using Backing = MemoryBacking;
  static constexpr Lookup kLookup = Lookup::kLatchedTable;
  static constexpr bool kReplacementPerPartition = kPerPartition;
  static constexpr bool kUnpinUnderLatch = kPerPartition;
  static constexpr bool kVersioned = true;
  static constexpr bool kCount = true;
};

template <class Cache>
u64 value_of(Cache& cache, u64 key) {
  std::byte* page = cache.fix(key);
  u64 v;
  std::memcpy(&v, page, sizeof v);
  cache.unfix(key, page);
  return v;
}

PageCacheOptions options(u64 frames, u32 partitions, u32 buckets = 64) {
  PageCacheOptions o;
  o.page_size = kPage;
  o.frames = frames;
  o.partitions = partitions;
  o.buckets = buckets;
  return o;
}

TEST(PageCache, MissThenHitReadsOnce) {
  MemoryFile file(100);
  PageCache<TestConfig<true>> cache(options(16, 4), MemoryBacking{&file});
  EXPECT_EQ(value_of(cache, 7), 7u);
  EXPECT_EQ(value_of(cache, 7), 7u);
  const CacheStats s = cache.stats();
  EXPECT_EQ(s.misses, 1u);
  EXPECT_EQ(s.hits, 1u);
  EXPECT_EQ(s.reads, 1u);
  EXPECT_EQ(file.reads.load(), 1u);
}

TEST(PageCache, EveryPageReadableThroughSmallPartitionedCache) {
  MemoryFile file(200);
  PageCache<TestConfig<true>> cache(options(16, 4), MemoryBacking{&file});
  for (int round = 0; round < 3; ++round)
    for (u64 k = 0; k < 200; ++k) ASSERT_EQ(value_of(cache, k), k);
  EXPECT_LE(cache.resident_pages(), 16u);
  EXPECT_EQ(cache.stats().misses, 600u);  // LRU over a loop larger than the cache: every access misses
}

TEST(PageCache, PartitionsKeepTheirOwnFramesAndCounters) {
  MemoryFile file(64);
  PageCache<TestConfig<true>> cache(options(8, 2), MemoryBacking{&file});
  // Keys of partition 0 only: at most its 4 frames hold them.
  std::vector<u64> zero;
  for (u64 k = 0; k < 64 && zero.size() < 10; ++k)
    if (cache.partition_of(k) == 0) zero.push_back(k);
  ASSERT_EQ(zero.size(), 10u);
  for (u64 k : zero) value_of(cache, k);
  EXPECT_EQ(cache.resident_pages(), 4u);
  EXPECT_EQ(cache.partition_stats(0).misses, 10u);
  EXPECT_EQ(cache.partition_stats(1).misses, 0u);
}

TEST(PageCache, PinnedFrameIsNeverEvicted) {
  MemoryFile file(64);
  PageCache<TestConfig<true>> cache(options(2, 1), MemoryBacking{&file});
  std::byte* held = cache.fix(5);
  for (u64 k = 10; k < 30; ++k) ASSERT_EQ(value_of(cache, k), k);
  u64 v;
  std::memcpy(&v, held, sizeof v);
  EXPECT_EQ(v, 5u);
  EXPECT_EQ(cache.pin_count(5), 1u);
  cache.unfix(5, held);
  EXPECT_EQ(cache.pin_count(5), 0u);
}

TEST(PageCache, ReadAroundWhenEveryFrameIsPinned) {
  MemoryFile file(64);
  PageCache<TestConfig<true>> cache(options(2, 1), MemoryBacking{&file});
  std::byte* a = cache.fix(1);
  std::byte* b = cache.fix(2);
  std::vector<std::byte> out(kPage);
  cache.read(9, out.data());
  u64 v;
  std::memcpy(&v, out.data(), sizeof v);
  EXPECT_EQ(v, 9u);
  EXPECT_EQ(cache.stats().read_arounds, 1u);
  EXPECT_FALSE(cache.resident(9));
  EXPECT_THROW(cache.fix(10), std::runtime_error);  // fix cannot read around
  cache.unfix(1, a);
  cache.unfix(2, b);
}

TEST(PageCache, DirtyVictimWrittenBackBeforeItsFrameIsReused) {
  MemoryFile file(64);
  PageCache<TestConfig<true>> cache(options(2, 1), MemoryBacking{&file});
  std::byte* page = cache.fix(3, LatchMode::kExclusive);
  const u64 changed = 333;
  std::memcpy(page, &changed, sizeof changed);
  cache.unfix(3, page, LatchMode::kExclusive);
  for (u64 k = 10; k < 14; ++k) value_of(cache, k);  // pushes 3 out
  EXPECT_EQ(file.writes.load(), 1u);
  EXPECT_EQ(value_of(cache, 3), 333u);
}

// The miss path: while one thread reads a page (its read held at the gate),
// the partition latch is free (another page of the same partition is served)
// and a second reader of the same page waits on the in-flight frame instead
// of reading it again.
TEST(PageCache, ReadersOfAnInFlightPageWaitAndTheLatchIsFreeDuringTheRead) {
  MemoryFile file(64);
  PageCache<TestConfig<true>> cache(options(8, 1), MemoryBacking{&file});
  EXPECT_EQ(value_of(cache, 1), 1u);  // resident before the gate closes
  file.gate.lock();
  std::thread first([&] { EXPECT_EQ(value_of(cache, 20), 20u); });
  while (cache.stats().misses < 2) std::this_thread::yield();  // first is in its read
  std::thread second([&] { EXPECT_EQ(value_of(cache, 20), 20u); });
  while (cache.stats().inflight_waits < 1) std::this_thread::yield();  // second waits on the frame
  EXPECT_EQ(value_of(cache, 1), 1u);  // the partition latch is not held across the read
  file.gate.unlock();
  first.join();
  second.join();
  EXPECT_EQ(file.reads.load(), 2u);  // pages 1 and 20, each once
  EXPECT_EQ(cache.stats().inflight_waits, 1u);
}

TEST(PageCache, FailedReadLeavesNoPageBehind) {
  MemoryFile file(4);
  PageCache<TestConfig<true>> cache(options(4, 1), MemoryBacking{&file});
  EXPECT_THROW(value_of(cache, 50), std::out_of_range);
  EXPECT_FALSE(cache.resident(50));
  for (u64 k = 0; k < 4; ++k) EXPECT_EQ(value_of(cache, k), k);  // its frame is reclaimed
}

TEST(PageCache, SharedReplacementEvictsAcrossPartitions) {
  MemoryFile file(100);
  PageCache<TestConfig<false, cache::Clock>> cache(options(6, 3, 12), MemoryBacking{&file});
  for (int round = 0; round < 2; ++round)
    for (u64 k = 0; k < 100; ++k) ASSERT_EQ(value_of(cache, k), k);
  EXPECT_EQ(cache.resident_pages(), 6u);
  EXPECT_EQ(cache.partition_count(), 3u);
}

TEST(PageCache, RefixHoldsUntilThePageChangesOrLeaves) {
  MemoryFile file(100);
  PageCache<TestConfig<false, cache::Clock>> cache(options(4, 2, 8), MemoryBacking{&file});
  std::byte* page = cache.fix(9);
  const FrameRef ref = cache.remember(9, page);
  cache.unfix(9, page);

  std::byte* again = cache.refix(ref);
  ASSERT_EQ(again, page);
  cache.unfix(9, again);
  EXPECT_EQ(cache.stats().refixes, 1u);

  std::byte* w = cache.fix(9, LatchMode::kExclusive);  // a change bumps the version
  cache.unfix(9, w, LatchMode::kExclusive);
  EXPECT_EQ(cache.refix(ref), nullptr);

  std::byte* fresh = cache.fix(9);
  const FrameRef ref2 = cache.remember(9, fresh);
  cache.unfix(9, fresh);
  ASSERT_TRUE(cache.evict(9));
  EXPECT_EQ(cache.refix(ref2), nullptr);  // the page left its frame
  EXPECT_EQ(cache.stats().refix_failures, 2u);
  EXPECT_EQ(value_of(cache, 9), 9u);
}

TEST(PageCache, EvictRefusesAPinnedPage) {
  MemoryFile file(10);
  PageCache<TestConfig<true>> cache(options(4, 1), MemoryBacking{&file});
  std::byte* page = cache.fix(2);
  EXPECT_FALSE(cache.evict(2));
  cache.unfix(2, page);
  EXPECT_TRUE(cache.evict(2));
  EXPECT_FALSE(cache.resident(2));
  EXPECT_FALSE(cache.evict(2));
}

TEST(PageCache, LatchWaitsAreCounted) {
  MemoryFile file(10);
  PageCache<TestConfig<true>> cache(options(4, 1), MemoryBacking{&file});
  value_of(cache, 1);
  cache.partition_latch(0).lock();
  std::thread t([&] { value_of(cache, 1); });
  // The other thread can only finish after we let go.
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  cache.partition_latch(0).unlock();
  t.join();
  EXPECT_EQ(cache.stats().latch_waits, 1u);
  EXPECT_GT(cache.stats().latch_wait_ns, 0u);
}

TEST(PageCache, ManyThreadsSeeEveryPageIntact) {
  MemoryFile file(300);
  PageCache<TestConfig<false, cache::Clock>> cache(options(32, 4, 64), MemoryBacking{&file});
  std::vector<std::thread> threads;
  std::atomic<int> wrong{0};
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (u64 i = 0; i < 3000; ++i) {
        const u64 k = (i * 7919 + static_cast<u64>(t) * 31) % 300;
        if (value_of(cache, k) != k) ++wrong;
      }
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
  const CacheStats s = cache.stats();
  EXPECT_EQ(s.hits + s.misses, 12000u);
}

// A policy with Options (MyISAM's division limit here) gets them in every
// partition the cache makes, and again after a restart.
TEST(PageCache, ReplacementOptionsReachEveryPartitionsPolicy) {
  MemoryFile file(64);
  PageCache<TestConfig<true, cache::MidpointLru>> cache(options(16, 2), MemoryBacking{&file},
                                                        cache::MidpointLru::Options{50, 300, true});
  for (int round = 0; round < 2; ++round) {
    for (u64 k : {u64{4}, u64{5}})
      for (int i = 0; i < 4; ++i) value_of(cache, k);  // a miss, then three hits: hot
    EXPECT_EQ(cache.policy(0).hot_blocks() + cache.policy(1).hot_blocks(), 2u);
    cache.restart(16);
  }
  PageCache<TestConfig<true, cache::MidpointLru>> plain(options(16, 2), MemoryBacking{&file});  // default: plain LRU
  for (int i = 0; i < 4; ++i) value_of(plain, 4);
  EXPECT_EQ(plain.policy(plain.partition_of(4)).hot_blocks(), 0u);
}

TEST(SpinNapLatch, NapsWhenHeldLongerThanItsSpin) {
  spin_nap_params() = SpinNapParams{10, 1, 2};
  SpinNapLatch latch;
  latch.lock();
  std::thread t([&] {
    latch.lock();
    latch.unlock();
  });
  while (latch.naps() == 0) std::this_thread::yield();
  latch.unlock();
  t.join();
  EXPECT_GE(latch.naps(), 1u);
  spin_nap_params() = SpinNapParams{};
}

TEST(AdaptiveMutex, ExcludesAndTries) {
  AdaptiveMutex m;
  m.lock();
  EXPECT_FALSE(m.try_lock());
  m.unlock();
  EXPECT_TRUE(m.try_lock());
  m.unlock();
}

}  // namespace
}  // namespace dbrepro
