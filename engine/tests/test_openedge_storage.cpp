// E3's storage side: the generated tables' selectivities, the buffer pool as
// a configuration of the page cache (latch sizing, the file behind it, the
// warm-up), and the optimistic index cursor's re-validation and fallbacks.
#include <gtest/gtest.h>

#include <set>

#include "openedge/index_cursor.hpp"
#include "openedge/join_cursor.hpp"
#include "openedge/pool.hpp"

using namespace dbrepro;
using namespace dbrepro::openedge;

namespace {

Database small_db(u64 rows = 2000, u32 fanout = 1) { return build_database({rows, fanout, 7, ""}); }

std::vector<Record> scan(IndexCursor<OptimisticAccess>& cursor, AccessCounters& counters) {
  std::vector<Record> out;
  Record r;
  while (cursor.next(r, counters)) out.push_back(r);
  return out;
}

}  // namespace

TEST(OpenEdgeDatabase, TablesFollowTheOfRelationshipsAndFanout) {
  const Database db = small_db(500, 2);
  const u64 expected[kTables] = {500, 1000, 1000, 2000, 2000, 4000, 4000};
  for (u32 t = 0; t < kTables; ++t) EXPECT_EQ(db.tables[t].rows, expected[t]) << "table " << t;
}

TEST(OpenEdgeDatabase, PercentColumnsMatchTheirShareOfKeys) {
  const Database db = small_db(20000);
  BufferPool pool(db, {});
  AccessCounters counters;
  for (u32 column = 2; column < kColumns; ++column) {
    // Rows whose Percent_P value is a key (>= 0) rather than out of every domain.
    IndexCursor<OptimisticAccess> matched(pool, db, 4, static_cast<Column>(column), 0, 1 << 30);
    const double share = 100.0 * scan(matched, counters).size() / db.tables[4].rows;
    EXPECT_NEAR(share, kMatchPercent[column], 1.5) << "column " << column;
  }
}

TEST(OpenEdgeLatchSizing, FactorIsAShareOfBucketsAndFixedIsACount) {
  EXPECT_EQ(LatchSizing::factor(10).latches_for(1000), 100u);
  EXPECT_EQ(LatchSizing::factor(5).latches_for(10), 2u);  // never fewer than two (OpenEdge's minimum)
  EXPECT_EQ(LatchSizing::factor(5).latches_for(1), 1u);   // nor more than the buckets
  EXPECT_EQ(LatchSizing::fixed(1).latches_for(10), 1u);
  EXPECT_EQ(LatchSizing::fixed(256).latches_for(1000), 256u);
  EXPECT_EQ(LatchSizing::fixed(1024).latches_for(100), 100u);  // never more than the buckets
  const Database db = small_db();
  BufferPool pool(db, {0, 25, LatchSizing::factor(10)});
  EXPECT_EQ(pool.frame_count(), db.page_count);
  const u32 buckets = static_cast<u32>(db.page_count * 25 / 100);
  EXPECT_EQ(pool.latch_count(), buckets / 10);
  // Bucket b is guarded by latch b mod L: every latch the same number of buckets.
  EXPECT_EQ(pool.bucket_count() % pool.latch_count(), 0u);
  EXPECT_GE(pool.bucket_count(), buckets);
  EXPECT_LT(pool.bucket_count(), buckets + pool.latch_count());
  EXPECT_EQ(pool.resident_pages(), db.page_count);  // warmed: everything fits
  const CacheStats warm = pool.stats();             // counted from the end of the warm-up
  EXPECT_EQ(warm.hits + warm.misses + warm.reads + warm.latch_waits, 0u);
  EXPECT_THROW(validate(LatchSizing::factor(4)), std::invalid_argument);  // -hashLatchFactor: 5..100
}

TEST(OpenEdgeIndexCursor, OptimisticAndLookupCursorsReadTheSameRecords) {
  const Database db = small_db();
  BufferPool pool(db, {});
  AccessCounters lookup_counters, optimistic_counters;
  IndexCursor<LookupAccess> lookup(pool, db, 1, Column::kOfKey, 100, 1500);
  IndexCursor<OptimisticAccess> optimistic(pool, db, 1, Column::kOfKey, 100, 1500);
  std::vector<Record> a, b;
  lookup.next_batch(5000, a, lookup_counters);
  const CacheStats by_lookup = pool.stats();
  pool.reset_stats();
  optimistic.next_batch(5000, b, optimistic_counters);
  const CacheStats by_refix = pool.stats();
  ASSERT_EQ(a.size(), 1400u);
  ASSERT_EQ(b.size(), a.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(num_key(a[i]), num_key(b[i]));
  // The range [100, 1500) of 2000 bulk-loaded keys, a full node's worth to a
  // leaf (453 in an 8 KB slotted node): four leaves entered.
  const u64 per_leaf = Node::capacity_for(kPageBytes);
  const u64 leaves = 1499 / per_leaf - 100 / per_leaf + 1;
  EXPECT_EQ(leaves, 4u);
  EXPECT_EQ(lookup_counters.index_blocks, leaves);
  EXPECT_EQ(optimistic_counters.index_blocks, leaves);
  const u64 height = static_cast<u64>(pool.index(1, Column::kOfKey).height());
  EXPECT_EQ(height, 2u);
  // Lookup: the descent from the root, then a hash lookup per record for the
  // leaf and one for the data page (the last call finds the key that ends the
  // range), and one for each leaf moved to.
  EXPECT_EQ(by_lookup.refixes, 0u);
  EXPECT_EQ(by_lookup.hits, height + 2 * a.size() + (leaves - 1));
  EXPECT_EQ(by_lookup.misses, 0u);
  // Optimistic: every call after the first re-fixes its leaf instead.
  EXPECT_EQ(by_refix.refixes, a.size());
  EXPECT_EQ(by_refix.hits + by_refix.refixes, by_lookup.hits);
  EXPECT_EQ(by_refix.refix_failures, 0u);
}

// Reads Table1's keys 10..19 with an optimistic cursor, doing `meanwhile` to
// its remembered leaf after the third record; the keys must come out whole.
template <class Meanwhile>
CacheStats read_keys_10_to_19(const Database& db, BufferPool& pool, Meanwhile meanwhile) {
  AccessCounters counters;
  IndexCursor<OptimisticAccess> cursor(pool, db, 0, Column::kNumKey, 10, 20);
  std::vector<Record> out;
  cursor.next_batch(3, out, counters);
  const u64 avoided_before = pool.stats().refixes;
  meanwhile(db.tables[0].indexes[0].first_leaf);
  cursor.next_batch(100, out, counters);
  EXPECT_EQ(out.size(), 10u);
  for (size_t k = 0; k < out.size(); ++k) EXPECT_EQ(num_key(out[k]), static_cast<i64>(10 + k));
  const CacheStats stats = pool.stats();
  EXPECT_EQ(stats.refix_failures, 1u);
  EXPECT_GT(stats.refixes, avoided_before);  // re-fixes again after the fallback
  return stats;
}

TEST(OpenEdgeIndexCursor, FallsBackWhenTheRememberedLeafWasEvicted) {
  const Database db = small_db();
  BufferPool pool(db, {});
  const auto counters = read_keys_10_to_19(db, pool, [&](PageId leaf) {
    ASSERT_TRUE(pool.evict(leaf));
    EXPECT_EQ(pool.resident_pages(), db.page_count - 1);
  });
  EXPECT_EQ(counters.misses, 1u);  // the leaf came back from the database file
  EXPECT_EQ(counters.reads, 1u);
  // Back in a frame (the clock's choice: the emptied frame or another page's).
  EXPECT_TRUE(pool.resident(db.tables[0].indexes[0].first_leaf));
}

TEST(OpenEdgeIndexCursor, FallsBackWhenTheRememberedLeafChanged) {
  const Database db = small_db();
  BufferPool pool(db, {});
  // An update (an exclusive fix) bumps the page's version; the page stays in its frame.
  const auto counters = read_keys_10_to_19(db, pool, [&](PageId leaf) {
    std::byte* page = pool.fix(leaf, LatchMode::kExclusive);
    pool.unfix(leaf, page, LatchMode::kExclusive);
  });
  EXPECT_EQ(counters.misses, 0u);
}

TEST(OpenEdgeBufferPool, PinnedPagesAreNotEvictedAndSmallPoolsReplace) {
  const Database db = small_db();
  BufferPool pool(db, {16, 25, LatchSizing::fixed(4)});
  AccessCounters counters;
  std::byte* page = pool.fix(3);
  EXPECT_FALSE(pool.evict(3));
  pool.unfix(3, page);
  EXPECT_TRUE(pool.evict(3));
  // A scan over more pages than frames replaces them and still reads right.
  IndexCursor<LookupAccess> cursor(pool, db, 2, Column::kNumKey, 0, 2000);
  std::vector<Record> out;
  cursor.next_batch(5000, out, counters);
  ASSERT_EQ(out.size(), 2000u);
  for (i64 k = 0; k < 2000; ++k) ASSERT_EQ(num_key(out[k]), k);
  EXPECT_GT(pool.stats().misses, 16u);
  EXPECT_EQ(pool.resident_pages(), 16u);
}

TEST(OpenEdgeJoinCursor, SendsEachQualifyingRecordOnceAndOnlyWholeTuples) {
  const Database db = small_db(300, 2);
  BufferPool pool(db, {});
  AccessCounters counters;
  JoinCursor<OptimisticAccess> join(pool, db, article_join(0, 300));
  std::vector<JoinEntry> entries;
  while (join.next_batch(50, entries, counters)) {
  }
  u64 tuples = 0;
  std::set<std::pair<u8, i64>> seen;
  for (const auto& e : entries) {
    tuples += e.level == 6;
    EXPECT_TRUE(seen.insert({e.level, num_key(e.record)}).second) << "sent twice: level " << int(e.level);
  }
  EXPECT_GT(tuples, 0u);
  EXPECT_LT(entries.size(), 7 * tuples);  // shared prefixes are not repeated
  EXPECT_EQ(entries.back().level, 6);     // ends with a whole tuple
}
