#pragma once
// sysbench's select_random_points: SELECT id, k, c, pad FROM sbtest WHERE k IN
// (P random points). The IN list is sorted and de-duplicated (as MySQL's range
// optimizer does), each point is a range scan of the k index through the key
// cache, and each matching row is read from the data file.
#include <vector>

#include "common/random.hpp"
#include "keycache/key_cache.hpp"
#include "sysbench/sbtest.hpp"

namespace dbrepro::sysbench {

struct PointsResult {
  u64 rows = 0;
  u64 checksum = 0;  // order-independent digest of the rows returned
};

// Per-thread scratch space, so a query allocates nothing.
struct QueryScratch {
  explicit QueryScratch(u32 block_size) : block(block_size) {}
  std::vector<std::byte> block;
  std::vector<u32> points;
};

PointsResult select_points(const SbtestTable& table, keycache::KeyCache& cache, const std::vector<u32>& points,
                           QueryScratch& scratch);

// Draws P points in 1..rows from the table's distribution (sysbench's sb_rand,
// the same one k was drawn from) and runs the query.
PointsResult select_random_points(const SbtestTable& table, keycache::KeyCache& cache, Random& rng, u32 p,
                                  QueryScratch& scratch);

}  // namespace dbrepro::sysbench
