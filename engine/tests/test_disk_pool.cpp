// Tests of the disk-backed pool (buffer/disk_pool.hpp) with every
// replacement policy: pages survive eviction and come back from the file
// with their bytes; the run starts with the pool at its fraction, cold, and
// counts its reads and write-backs; a B+tree much larger than the pool
// matches std::map; threads fixing pages at random see consistent pages; the
// FIFO family takes no lock on a hit while LRU takes one per hit; a
// recording pool writes its reference string, and the simulator replaying
// it counts the pool's own hits; SoQoL's cold ring writes back dirty pages
// before it frees them; a warm-up keeps the pool's contents and restarts its
// counters; the database written in bulk reads back from the file.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <map>
#include <thread>
#include <vector>

#include "btree/btree.hpp"
#include "io/block_file.hpp"
#include "buffer/disk_pool.hpp"
#include "cache/policies.hpp"
#include "cache/simulator.hpp"
#include "common/random.hpp"

namespace dbrepro {
namespace {

constexpr u32 kPageSize = 4096;

DiskPoolOptions small_pool(double fraction) {
  DiskPoolOptions o;
  o.fraction = fraction;
  o.min_frames = 16;
  return o;
}

u64 tag_of(PageId pid, u64 round) { return pid * 2654435761u + round * 1000003u + 17; }

template <class Pool>
void write_tag(Pool& pool, PageId pid, u64 tag) {
  std::byte* p = pool.fix(pid, LatchMode::kExclusive);
  std::memcpy(p, &tag, sizeof(tag));
  std::memcpy(p + kPageSize - sizeof(tag), &tag, sizeof(tag));
  pool.unfix(pid, p, LatchMode::kExclusive);
}

template <class Pool>
u64 read_tag(Pool& pool, PageId pid) {
  std::byte* p = pool.fix(pid, LatchMode::kShared);
  u64 head, tail;
  std::memcpy(&head, p, sizeof(head));
  std::memcpy(&tail, p + kPageSize - sizeof(tail), sizeof(tail));
  pool.unfix(pid, p, LatchMode::kShared);
  EXPECT_EQ(head, tail) << "torn page " << pid;
  return head;
}

template <class P>
class DiskPoolTest : public ::testing::Test {};
using AllPolicies = ::testing::Types<cache::Lru, cache::Fifo, cache::Clock, cache::Sieve, cache::S3Fifo,
                                     cache::TwoQ, cache::Soqol>;
TYPED_TEST_SUITE(DiskPoolTest, AllPolicies);

TYPED_TEST(DiskPoolTest, PagesSurviveEvictionAndCountIo) {
  constexpr PageId kPages = 400;
  DiskPool<Latching, TypeParam> pool(kPageSize, 4096, small_pool(0.1));
  for (PageId i = 0; i < kPages; ++i) ASSERT_EQ(pool.allocate(), i);
  for (PageId i = 0; i < kPages; ++i) write_tag(pool, i, tag_of(i, 0));
  pool.start_run();
  auto s = pool.stats();
  EXPECT_EQ(s.frames, 40u);
  EXPECT_EQ(s.database_pages, kPages);
  EXPECT_EQ(s.hits + s.misses + s.reads + s.writes, 0u);
  EXPECT_STREQ(s.policy.c_str(), TypeParam::kName);
  // Two passes of reads and one of writes over 10x the pool.
  for (int pass = 0; pass < 2; ++pass)
    for (PageId i = 0; i < kPages; ++i) ASSERT_EQ(read_tag(pool, i), tag_of(i, 0)) << "page " << i;
  for (PageId i = 0; i < kPages; ++i) write_tag(pool, i, tag_of(i, 1));
  for (PageId i = 0; i < kPages; ++i) ASSERT_EQ(read_tag(pool, i), tag_of(i, 1)) << "page " << i;
  s = pool.stats();
  // Four passes, one fix per page each; a loop ten times the pool misses almost always.
  EXPECT_EQ(s.hits + s.misses, 4u * kPages);
  EXPECT_EQ(s.reads, s.misses);
  EXPECT_GE(s.misses, 3u * kPages);
  EXPECT_GE(s.writes, kPages - 40u) << "the rewritten pages went back to the file";
  EXPECT_EQ(pool.page_count(), kPages);
}

TYPED_TEST(DiskPoolTest, BTreeTenTimesThePoolMatchesStdMap) {
  DiskPool<Latching, TypeParam> pool(kPageSize, 1 << 14, small_pool(0.1));
  BTree<IntegerKeyCompare, DiskPool<Latching, TypeParam>> tree(pool, KeyLayout{64});
  std::map<u64, u64> model;
  Random rng(5);
  for (int i = 0; i < 20000; ++i) {
    const u64 k = static_cast<u64>(rng.uniform(0, 1'000'000));
    model.emplace(k, k * 3);
    tree.insert(KeyLayout{64}.pack({k}), k * 3);
  }
  pool.start_run();  // from here on the tree lives mostly in the file
  for (int i = 0; i < 5000; ++i) {
    const u64 k = static_cast<u64>(rng.uniform(0, 1'000'000));
    if (model.emplace(k, k * 7).second) {
      ASSERT_TRUE(tree.insert(KeyLayout{64}.pack({k}), k * 7));
    }
  }
  for (const auto& [k, v] : model) {
    u64 got = 0;
    ASSERT_TRUE(tree.lookup(KeyLayout{64}.pack({k}), &got)) << k;
    ASSERT_EQ(got, v);
  }
  EXPECT_GT(pool.stats().reads, 0u);
  EXPECT_LT(pool.stats().frames, pool.page_count() / 5);
}

TYPED_TEST(DiskPoolTest, ThreadsFixingAtRandomSeeConsistentPages) {
  constexpr PageId kPages = 300;
  DiskPool<Latching, TypeParam> pool(kPageSize, 4096, small_pool(0.2));
  for (PageId i = 0; i < kPages; ++i) write_tag(pool, pool.allocate(), tag_of(i, 0));
  pool.start_run();
  // Each thread owns the pages i % 4 == t and rewrites them; all read all.
  std::vector<std::vector<u64>> rounds(4, std::vector<u64>(kPages, 0));
  std::vector<std::thread> threads;
  std::atomic<int> bad{0};
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      Random rng(100 + t);
      for (int i = 0; i < 4000; ++i) {
        const PageId pid = static_cast<PageId>(rng.uniform(0, kPages - 1));
        if (static_cast<int>(pid % 4) == t && rng.uniform(0, 1) == 0) {
          write_tag(pool, pid, tag_of(pid, ++rounds[t][pid]));
        } else {
          std::byte* p = pool.fix(pid, LatchMode::kShared);
          u64 head, tail;
          std::memcpy(&head, p, sizeof(head));
          std::memcpy(&tail, p + kPageSize - sizeof(tail), sizeof(tail));
          pool.unfix(pid, p, LatchMode::kShared);
          if (head != tail) ++bad;
          if (static_cast<int>(pid % 4) == t && head != tag_of(pid, rounds[t][pid])) ++bad;
        }
      }
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(bad.load(), 0);
  for (PageId pid = 0; pid < kPages; ++pid) EXPECT_EQ(read_tag(pool, pid), tag_of(pid, rounds[pid % 4][pid]));
}

TEST(DiskPool, FifoHitsTakeNoLockLruHitsTakeOne) {
  for (const char* name : {"lru", "fifo", "soqol"}) {
    cache::with_policy(name, [&]<class P>(std::type_identity<P>) {
      DiskPool<Latching, P> pool(kPageSize, 4096, small_pool(0.5));
      for (PageId i = 0; i < 100; ++i) pool.allocate();
      pool.start_run();
      Random rng(9);
      for (int i = 0; i < 3000; ++i) read_tag(pool, static_cast<PageId>(rng.uniform(0, 99)));
      const DiskPoolStats s = pool.stats();
      EXPECT_GT(s.hits, 0u);
      EXPECT_EQ(s.hit_locks, std::string(name) == "lru" ? s.hits : 0u) << name;
      EXPECT_EQ(s.hit_lock_waits + s.hit_lock_wait_ns, 0u) << name << ": one thread never waits";
    });
  }
}

// SoQoL's cold ring holds clean pages: a dirty page is written back as it
// enters the ring, so no victim is dirty when its frame is reused (every
// write-back is a cold-ring one) and the pages come back from the file with
// their bytes. Other policies write back victims only.
TEST(DiskPool, SoqolWritesBackDirtyPagesBeforeTheColdRingFreesThem) {
  for (const char* name : {"soqol", "fifo", "lru"}) {
    cache::with_policy(name, [&]<class P>(std::type_identity<P>) {
      constexpr PageId kPages = 400;
      DiskPool<Latching, P> pool(kPageSize, 4096, small_pool(0.1));
      for (PageId i = 0; i < kPages; ++i) write_tag(pool, pool.allocate(), tag_of(i, 0));
      pool.start_run();
      Random rng(21);
      std::vector<u64> round(kPages, 0);
      for (int i = 0; i < 6000; ++i) {
        const PageId pid = static_cast<PageId>(rng.uniform(0, kPages - 1));
        if (rng.uniform(0, 2) == 0) write_tag(pool, pid, tag_of(pid, ++round[pid]));
        else ASSERT_EQ(read_tag(pool, pid), tag_of(pid, round[pid])) << name << " page " << pid;
      }
      for (PageId pid = 0; pid < kPages; ++pid) ASSERT_EQ(read_tag(pool, pid), tag_of(pid, round[pid])) << name;
      const DiskPoolStats s = pool.stats();
      EXPECT_GT(s.writes, 1000u) << name;
      if (std::string(name) == "soqol") {
        EXPECT_EQ(s.cold_writes, s.writes) << "a dirty page was freed from the cold ring";
      } else {
        EXPECT_EQ(s.cold_writes, 0u) << name;
      }
    });
  }
}

TEST(DiskPool, RecordedTraceReplaysToThePoolsOwnCounts) {
  DiskPool<Latching, cache::Clock, RecordTrace> pool(kPageSize, 4096, small_pool(0.25));
  for (PageId i = 0; i < 200; ++i) pool.allocate();
  pool.start_run();
  Random rng(11);
  for (int i = 0; i < 5000; ++i) {
    const double u = rng.unit() * rng.unit();
    read_tag(pool, static_cast<PageId>(u * 200));
  }
  const auto* trace = pool.trace();
  ASSERT_NE(trace, nullptr);
  ASSERT_EQ(trace->size(), 5000u);
  const auto replay = cache::simulate("clock", *trace, static_cast<u32>(pool.stats().frames));
  EXPECT_EQ(replay.hits, pool.stats().hits);
  EXPECT_EQ(replay.misses, pool.stats().misses);
}

// A warm-up keeps the pool's contents and restarts its counters: what is
// reported is the measured phase's, and the simulator, replaying the whole
// recorded string with the warm-up's requests uncounted, counts the same.
TEST(DiskPool, CountersAfterTheWarmupCountTheMeasuredPhaseOnly) {
  for (const char* name : {"lru", "soqol"}) {
    cache::with_policy(name, [&]<class P>(std::type_identity<P>) {
      DiskPool<Latching, P, RecordTrace> pool(kPageSize, 4096, small_pool(0.25));
      for (PageId i = 0; i < 200; ++i) pool.allocate();
      pool.start_run();
      Random rng(13);
      auto skewed = [&] { return static_cast<PageId>(rng.unit() * rng.unit() * 200); };
      for (int i = 0; i < 3000; ++i) read_tag(pool, skewed());
      const DiskPoolStats warm = pool.stats();
      pool.start_measured();
      const DiskPoolStats zero = pool.stats();
      EXPECT_EQ(zero.hits + zero.misses + zero.reads + zero.writes + zero.hit_locks, 0u) << name;
      EXPECT_EQ(zero.warmup_misses, warm.misses) << name;
      EXPECT_EQ(zero.warmup_references, 3000u) << name;
      for (int i = 0; i < 2000; ++i) read_tag(pool, skewed());
      const DiskPoolStats s = pool.stats();
      EXPECT_EQ(s.hits + s.misses, 2000u) << name;
      EXPECT_LE(s.reads, s.misses) << name;
      EXPECT_EQ(s.hit_locks, std::string(name) == "lru" ? s.hits : 0u) << name;
      const auto replay = cache::simulate(name, *pool.trace(), static_cast<u32>(s.frames), 3000);
      EXPECT_EQ(replay.requests, 2000u) << name;
      EXPECT_EQ(replay.hits, s.hits) << name;
      EXPECT_EQ(replay.misses, s.misses) << name;
    });
  }
}

// The whole database is written before a run through the kernel's cache;
// once the bulk write ends, reads (O_DIRECT where allowed) see every page,
// and page-by-page writes go on as before.
TEST(DiskPool, BulkWrittenPagesReadBackFromTheFile) {
  BlockFile file = BlockFile::temporary("", kPageSize, /*want_direct=*/true);
  auto* buffer = static_cast<std::byte*>(std::aligned_alloc(4096, kPageSize));
  auto fill = [&](PageId pid, u64 round) {
    const u64 tag = tag_of(pid, round);
    for (u32 i = 0; i < kPageSize; i += sizeof(tag)) std::memcpy(buffer + i, &tag, sizeof(tag));
  };
  file.begin_bulk_write();
  for (PageId pid = 0; pid < 64; ++pid) {
    fill(pid, 0);
    file.write(pid, buffer);
  }
  file.end_bulk_write();
  fill(7, 1);
  file.write(7, buffer);  // after the bulk write: the ordinary path
  for (PageId pid = 0; pid < 64; ++pid) {
    file.read(pid, buffer);
    u64 tag;
    std::memcpy(&tag, buffer + kPageSize - sizeof(tag), sizeof(tag));
    EXPECT_EQ(tag, tag_of(pid, pid == 7 ? 1 : 0)) << "page " << pid;
  }
  std::free(buffer);
}

TEST(DiskPool, RejectsBadFractions) {
  EXPECT_THROW((DiskPool<Latching, cache::Fifo>(kPageSize, 64, small_pool(0.0))), std::invalid_argument);
  EXPECT_THROW((DiskPool<Latching, cache::Fifo>(kPageSize, 64, small_pool(1.5))), std::invalid_argument);
}

}  // namespace
}  // namespace dbrepro
