#include "sysbench/select_random_points.hpp"

#include <algorithm>

namespace dbrepro::sysbench {

namespace {
u64 row_digest(const SbtestRow& row) {
  u64 h = 0xcbf29ce484222325ull ^ (u64{row.id} << 32 | row.k);
  for (char ch : row.c) h = (h ^ static_cast<u8>(ch)) * 0x100000001b3ull;
  for (char ch : row.pad) h = (h ^ static_cast<u8>(ch)) * 0x100000001b3ull;
  return h;
}
}  // namespace

PointsResult select_points(const SbtestTable& table, keycache::KeyCache& cache, const std::vector<u32>& points,
                           QueryScratch& scratch) {
  std::vector<u32>& sorted = scratch.points;
  sorted.assign(points.begin(), points.end());
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  PointsResult result;
  SbtestRow row;
  for (const u32 k : sorted) {
    scan_from(cache, table.index_file(), SbtestTable::kIndexFileId, table.meta().k_index, u64{k} << 32,
              scratch.block.data(), [&](u64 key, u32 position) {
                if ((key >> 32) != k) return false;
                table.read_row(position, &row);
                ++result.rows;
                result.checksum += row_digest(row);  // a sum: row order does not matter
                return true;
              });
  }
  return result;
}

PointsResult select_random_points(const SbtestTable& table, keycache::KeyCache& cache, Random& rng, u32 p,
                                  QueryScratch& scratch) {
  thread_local std::vector<u32> points;
  points.resize(p);
  for (auto& point : points) point = draw_key(rng, table.meta().distribution, table.meta().rows);
  return select_points(table, cache, points, scratch);
}

}  // namespace dbrepro::sysbench
