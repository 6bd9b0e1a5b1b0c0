// Guards over fixed pages (buffer/page_guard.hpp) and records
// (storage/record_guard.hpp): a page a guard holds is unfixed when the guard
// goes away, on every path out (return, exception, move), and latch coupling
// fixes the next page before it lets the last one go.
#include <gtest/gtest.h>

#include <cstring>
#include <stdexcept>
#include <utility>
#include <vector>

#include "buffer/page_cache.hpp"
#include "buffer/page_guard.hpp"
#include "cache/lru.hpp"
#include "latch/blocking_latches.hpp"
#include "storage/heap_file.hpp"
#include "storage/page_store.hpp"
#include "storage/record_guard.hpp"

namespace dbrepro {
namespace {

struct GuardTestConfig {
  using PartitionLatch = AdaptiveMutex;
  using ReplacementLatch = SpinLatch;
  using FrameLatch = RwLatch;
  using Replacement = cache::Lru;
  using Partitioning = HashPartitioning;
  using Backing = NoBacking;
  static constexpr Lookup kLookup = Lookup::kLatchedTable;
  static constexpr bool kReplacementPerPartition = false;
  static constexpr bool kUnpinUnderLatch = false;
  static constexpr bool kVersioned = true;
  static constexpr bool kCount = true;
};
using Cache = PageCache<GuardTestConfig>;

PageCacheOptions options() {
  PageCacheOptions o;
  o.page_size = 512;
  o.frames = 8;
  o.partitions = 1;
  o.buckets = 16;
  return o;
}

// The page's frame latch is free for a writer (a guard that still held it
// would make this wait forever, and the test time out).
bool exclusive_fix_succeeds(Cache& cache, PageId pid) {
  std::byte* page = cache.fix(pid, LatchMode::kExclusive);  // would block if a guard still held it
  cache.unfix(pid, page, LatchMode::kExclusive);
  return true;
}

TEST(PageGuard, UnfixesWhenItGoesAway) {
  Cache cache(options());
  const PageId pid = cache.allocate();
  {
    const SharedGuard<Cache> guard(cache, pid);
    EXPECT_EQ(cache.pin_count(pid), 1u);
    EXPECT_EQ(guard.pid(), pid);
    EXPECT_EQ(guard.mode(), LatchMode::kShared);
  }
  EXPECT_EQ(cache.pin_count(pid), 0u);
  EXPECT_TRUE(exclusive_fix_succeeds(cache, pid));
}

TEST(PageGuard, UnfixesWhenAnExceptionLeaves) {
  Cache cache(options());
  const PageId pid = cache.allocate();
  EXPECT_THROW(
      {
        const ExclusiveGuard<Cache> guard(cache, pid);
        EXPECT_EQ(cache.pin_count(pid), 1u);
        throw std::runtime_error("leaving early");
      },
      std::runtime_error);
  EXPECT_EQ(cache.pin_count(pid), 0u);
  EXPECT_TRUE(exclusive_fix_succeeds(cache, pid));
}

TEST(PageGuard, AnExclusiveGuardMarksThePageChanged) {
  Cache cache(options());
  const PageId pid = cache.allocate();
  FrameRef before;
  {
    const SharedGuard<Cache> guard(cache, pid);
    before = cache.remember(pid, guard.page());
  }
  { const ExclusiveGuard<Cache> guard(cache, pid); }
  EXPECT_EQ(cache.refix(before), nullptr);  // the version moved: the exclusive unfix happened
}

TEST(PageGuard, MovesHandTheFixOverOnce) {
  Cache cache(options());
  const PageId a = cache.allocate();
  const PageId b = cache.allocate();
  SharedGuard<Cache> first(cache, a);
  SharedGuard<Cache> second = std::move(first);
  EXPECT_FALSE(first.held());
  EXPECT_TRUE(second.held());
  EXPECT_EQ(cache.pin_count(a), 1u);
  SharedGuard<Cache> third(cache, b);
  third = std::move(second);  // lets b go, takes a
  EXPECT_EQ(cache.pin_count(b), 0u);
  EXPECT_EQ(cache.pin_count(a), 1u);
  third.release();
  EXPECT_EQ(cache.pin_count(a), 0u);
  third.release();  // holds nothing: no second unfix
  EXPECT_EQ(cache.pin_count(a), 0u);
}

TEST(PageGuard, CouplingFixesTheNextPageBeforeLettingGo) {
  Cache cache(options());
  const PageId a = cache.allocate();
  const PageId b = cache.allocate();
  SharedGuard<Cache> guard(cache, a);
  guard.couple(b);
  EXPECT_EQ(guard.pid(), b);
  EXPECT_EQ(cache.pin_count(a), 0u);
  EXPECT_EQ(cache.pin_count(b), 1u);

  const PageId c = cache.allocate();
  PageGuard<Cache> dynamic(cache, a, LatchMode::kShared);
  dynamic.couple(c, LatchMode::kExclusive);
  EXPECT_EQ(dynamic.mode(), LatchMode::kExclusive);
  EXPECT_EQ(cache.pin_count(a), 0u);
  EXPECT_EQ(cache.pin_count(c), 1u);
  dynamic.release();
  EXPECT_TRUE(exclusive_fix_succeeds(cache, c));  // released in the mode it was fixed in
}

TEST(PageGuard, DetachAndAdoptHandAFixAcross) {
  Cache cache(options());
  const PageId pid = cache.allocate();
  std::byte* page = nullptr;
  {
    SharedGuard<Cache> guard(cache, pid);
    page = guard.detach();
  }
  EXPECT_EQ(cache.pin_count(pid), 1u);  // detached: the caller keeps it
  { const SharedGuard<Cache> adopted = SharedGuard<Cache>::adopt(cache, pid, page); }
  EXPECT_EQ(cache.pin_count(pid), 0u);
}

TEST(PageGuard, WorksOverDirectPages) {
  DirectPages<Latching> pages(1024);
  const PageId pid = pages.allocate();
  {
    const ExclusiveGuard<DirectPages<Latching>> guard(pages, pid);
    std::memset(guard.page(), 7, 8);
  }
  const SharedGuard<DirectPages<Latching>> again(pages, pid);
  EXPECT_EQ(again.page()[0], std::byte{7});
}

TEST(RecordGuard, UnfixesTheRecordsPage) {
  Cache cache(options());
  HeapFile<Cache> heap(cache);
  const u64 value = 42;
  const RecordId rid = heap.create(&value, sizeof value);
  {
    const RecordGuard<HeapFile<Cache>, LatchMode::kExclusive> pinned(heap, rid);
    EXPECT_EQ(cache.pin_count(rid.page), 1u);
    u64 read;
    std::memcpy(&read, pinned.record(), sizeof read);
    EXPECT_EQ(read, 42u);
  }
  EXPECT_EQ(cache.pin_count(rid.page), 0u);
}

}  // namespace
}  // namespace dbrepro
