#pragma once
// sysbench's select_random_points: SELECT id, k, c, pad FROM sbtest WHERE k IN
// (P random points). The IN list is sorted and de-duplicated (as MySQL's range
// optimizer does), each point is a range scan of the k index (the engine's
// B-tree, its blocks copied out of the key cache as MyISAM does), and each
// matching row is read from the data file.
#include <algorithm>
#include <vector>

#include "btree/btree.hpp"
#include "common/random.hpp"
#include "keycache/key_pages.hpp"
#include "sysbench/sbtest.hpp"

namespace dbrepro::sysbench {

struct PointsResult {
  u64 rows = 0;
  u64 checksum = 0;  // order-independent digest of the rows returned
};

// FNV-1a over the row's columns.
inline u64 row_digest(const SbtestRow& row) {
  u64 h = 0xcbf29ce484222325ull ^ (u64{row.id} << 32 | row.k);
  for (char ch : row.c) h = (h ^ static_cast<u8>(ch)) * 0x100000001b3ull;
  for (char ch : row.pad) h = (h ^ static_cast<u8>(ch)) * 0x100000001b3ull;
  return h;
}

// One connection's queries against a key cache (a KeyCache<Latch>): it owns
// its page buffers and scratch, so a query allocates nothing; one per thread.
// The cache must have the table's index file attached as kIndexFileId.
template <class Cache>
class PointSelect {
 public:
  using Pages = keycache::KeyPages<Cache>;
  using Index = BTree<IntegerKeyCompare, Pages>;

  PointSelect(const SbtestTable& table, Cache& cache)
      : table_(table),
        pages_(cache, SbtestTable::kIndexFileId),
        k_index_(pages_, kKIndexLayout, table.meta().k_index.root, table.meta().k_index.height,
                 table.meta().k_index.size) {}

  PointsResult select_points(const std::vector<u32>& points) {
    return select_points(points, [](const SbtestRow&) {});
  }

  // The same, handing each row to on_row as it is read (the server sends them).
  template <class OnRow>
  PointsResult select_points(const std::vector<u32>& points, OnRow&& on_row) {
    sorted_.assign(points.begin(), points.end());
    std::sort(sorted_.begin(), sorted_.end());
    sorted_.erase(std::unique(sorted_.begin(), sorted_.end()), sorted_.end());
    PointsResult result;
    SbtestRow row;
    for (const u32 k : sorted_) {
      for (auto cursor = k_index_.seek(k_index_key(k, 0)); cursor.valid() && (cursor.key() >> 32) == k;
           cursor.next()) {
        table_.read_row(static_cast<u32>(cursor.value()), &row);
        ++result.rows;
        result.checksum += row_digest(row);  // a sum: row order does not matter
        on_row(row);
      }
    }
    return result;
  }

  // Draws P points in 1..rows from the table's distribution (sysbench's
  // sb_rand, the same one k was drawn from) and runs the query.
  PointsResult select_random_points(Random& rng, u32 p) { return select_points(draw_points(rng, p)); }

  // P points as select_random_points draws them (the buffer is reused).
  const std::vector<u32>& draw_points(Random& rng, u32 p) {
    points_.resize(p);
    for (auto& point : points_) point = draw_key(rng, table_.meta().distribution, table_.meta().rows);
    return points_;
  }

 private:
  const SbtestTable& table_;
  Pages pages_;
  Index k_index_;
  std::vector<u32> points_, sorted_;
};

}  // namespace dbrepro::sysbench
