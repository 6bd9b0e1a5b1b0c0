// The B-tree's bulk load and its latch-free-between-calls read cursor
// (btree/bulk_load.hpp, btree/cursor.hpp) over the page cache: entries come
// back in order; a remembering cursor re-fixes its leaf without the page
// table; both cursors find their place again after the leaf split or left
// the cache between two calls.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <vector>

#include "btree/bulk_load.hpp"
#include "btree/cursor.hpp"
#include "buffer/page_cache.hpp"
#include "cache/clock.hpp"
#include "latch/blocking_latches.hpp"

using namespace dbrepro;

namespace {

constexpr u32 kPage = 512;  // 30 keys a node

struct MapBacking {
  std::map<u64, std::vector<std::byte>>* pages;
  void read(u64 key, std::byte* out) const { std::memcpy(out, pages->at(key).data(), kPage); }
  void write(u64 key, const std::byte* in) const { (*pages)[key].assign(in, in + kPage); }
};

struct CursorTestConfig {
  using PartitionLatch = PlainMutex;
  using ReplacementLatch = PlainMutex;
  using FrameLatch = RwLatch;
  using Replacement = cache::Clock;
  using Partitioning = HashPartitioning;
  using Backing = MapBacking;
  static constexpr Lookup kLookup = Lookup::kLatchedTable;
  static constexpr bool kReplacementPerPartition = false;
  static constexpr bool kUnpinUnderLatch = false;
  static constexpr bool kVersioned = true;
  static constexpr bool kCount = true;
};
using Cache = PageCache<CursorTestConfig>;
using Tree = BTree<IntegerKeyCompare, Cache>;

struct Fixture {
  std::map<u64, std::vector<std::byte>> file;
  Cache cache;
  BTreeShape loaded;
  Tree tree;
  // Keys 0, 3, 6, ... (n of them), value = key + 1.
  explicit Fixture(u64 n) : cache(options(), MapBacking{&file}), loaded(load(cache, n)),
        tree(cache, KeyLayout{64}, loaded.root, loaded.height, loaded.size) {
    cache.reset_stats();
  }
  static PageCacheOptions options() {
    PageCacheOptions o;
    o.page_size = kPage;
    o.frames = 4096;
    o.partitions = 8;
    return o;
  }
  static BTreeShape load(Cache& cache, u64 n) {
    std::vector<BulkEntry> sorted(n);
    for (u64 i = 0; i < n; ++i) sorted[i] = {3 * i, 3 * i + 1};
    return bulk_load(cache, sorted);
  }
};

template <class Find>
std::vector<PackedKey> read(ReadCursor<Tree, Find>& cursor, u64 max = ~u64{0}) {
  std::vector<PackedKey> keys;
  PackedKey key;
  u64 value;
  while (keys.size() < max && cursor.next(key, value)) {
    EXPECT_EQ(value, key + 1);
    keys.push_back(key);
  }
  return keys;
}

}  // namespace

TEST(BTreeBulkLoad, BuildsFullLinkedLeavesAndInnerLevels) {
  Fixture f(1000);
  EXPECT_EQ(f.loaded.size, 1000u);
  EXPECT_EQ(f.loaded.height, 3);  // 34 leaves of 30 keys, 2 inner nodes, a root
  for (u64 i = 0; i < 1000; ++i) {
    u64 value = 0;
    ASSERT_TRUE(f.tree.lookup(3 * i, &value)) << i;
    EXPECT_EQ(value, 3 * i + 1);
    EXPECT_FALSE(f.tree.lookup(3 * i + 1, nullptr));
  }
  // The tree takes inserts after the load (leaves split).
  EXPECT_TRUE(f.tree.insert(4, 5));
  auto c = f.tree.seek(0);
  std::vector<PackedKey> keys;
  for (; c.valid(); c.next()) keys.push_back(c.key());
  ASSERT_EQ(keys.size(), 1001u);
  EXPECT_TRUE(std::is_sorted(keys.begin(), keys.end()));
  const BTreeShape empty = bulk_load(f.cache, std::vector<BulkEntry>{});
  EXPECT_EQ(empty.size, 0u);
  EXPECT_EQ(empty.height, 1);
}

TEST(BTreeReadCursor, BothCursorsReadTheRangeAndTheRememberingOneSkipsThePageTable) {
  Fixture f(1000);
  ReadCursor<Tree, FindByLookup> lookup(f.tree, 301);
  const auto a = read(lookup);
  const CacheStats by_lookup = f.cache.stats();
  f.cache.reset_stats();
  ReadCursor<Tree, FindByRemember> remember(f.tree, 301);
  const auto b = read(remember);
  const CacheStats by_refix = f.cache.stats();
  ASSERT_EQ(a.size(), 1000u - 101);  // from 303 on
  EXPECT_EQ(a.front(), 303u);
  EXPECT_EQ(a, b);
  EXPECT_EQ(lookup.leaves_entered(), remember.leaves_entered());
  const u64 calls = a.size() + 1;  // the last one finds the end
  // Lookup: the descent, then the leaf once a call, and each sibling moved to.
  EXPECT_EQ(by_lookup.refixes, 0u);
  EXPECT_EQ(by_lookup.hits, f.loaded.height + (calls - 1) + (lookup.leaves_entered() - 1));
  // Remembering: every call after the first re-fixes its leaf instead.
  EXPECT_EQ(by_refix.refixes, calls - 1);
  EXPECT_EQ(by_refix.refix_failures, 0u);
  EXPECT_EQ(by_refix.hits + by_refix.refixes, by_lookup.hits);
}

template <class Find>
void resumes_after_splits() {
  Fixture f(300);  // full leaves: every insert into one splits it
  ReadCursor<Tree, Find> cursor(f.tree, 0);
  auto keys = read(cursor, 100);
  ASSERT_EQ(keys.back(), 297u);
  // Between two calls: new keys everywhere, before and after the cursor.
  for (u64 k = 1; k < 900; k += 6) ASSERT_TRUE(f.tree.insert(k, k + 1));
  const auto rest = read(cursor);
  keys.insert(keys.end(), rest.begin(), rest.end());
  std::vector<PackedKey> expected;
  for (u64 k = 0; k < 900; k += 3) expected.push_back(k);
  for (u64 k = 1; k < 900; k += 6)
    if (k > 297) expected.push_back(k);
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(keys, expected);  // each key once, in order, none skipped
  if constexpr (std::is_same_v<Find, FindByRemember>) {
    EXPECT_GE(f.cache.stats().refix_failures, 1u);
  }
}

TEST(BTreeReadCursor, LookupCursorResumesAfterItsLeafSplit) { resumes_after_splits<FindByLookup>(); }
TEST(BTreeReadCursor, RememberingCursorResumesAfterItsLeafSplit) { resumes_after_splits<FindByRemember>(); }

TEST(BTreeReadCursor, RememberingCursorFallsBackWhenItsLeafLeftTheCache) {
  Fixture f(300);
  ReadCursor<Tree, FindByRemember> cursor(f.tree, 0);
  auto keys = read(cursor, 10);
  f.cache.flush();
  const PageId first_leaf = 0;  // bulk load allocates the leaves first
  ASSERT_TRUE(f.cache.evict(first_leaf));
  const auto rest = read(cursor);
  keys.insert(keys.end(), rest.begin(), rest.end());
  ASSERT_EQ(keys.size(), 300u);
  for (u64 i = 0; i < 300; ++i) ASSERT_EQ(keys[i], 3 * i);
  const CacheStats s = f.cache.stats();
  EXPECT_EQ(s.refix_failures, 1u);
  EXPECT_EQ(s.reads, 1u);  // the leaf came back from the file
}
