// Ghost hits of the policies that keep evicted ids (2Q's A1out, S3-FIFO's
// ghost), through the trace simulator. 2Q admits a page to Am only on a
// ghost hit; without one Am stays empty and 2Q evicts from A1in alone, a
// FIFO: then its counts must be FIFO's, request for request. With ghost hits
// too, as long as fewer pages have been evicted than the cache holds.
#include <gtest/gtest.h>

#include <cstddef>
#include <numeric>
#include <vector>

#include "cache/simulator.hpp"

namespace dbrepro::cache {
namespace {

// Each of `pages` pages requested twice in a row, the whole round `rounds`
// times: the second request hits, and a page comes back only after all the
// others, far beyond the ghost's window.
std::vector<u64> doubled_scan(u64 pages, int rounds) {
  std::vector<u64> trace;
  for (int r = 0; r < rounds; ++r)
    for (u64 id = 0; id < pages; ++id) trace.insert(trace.end(), {id, id});
  return trace;
}

TEST(CacheGhostHits, NoPageBackWithinTheGhostWindowMakes2QExactlyFifo) {
  const auto trace = doubled_scan(1000, 3);  // cache 100: ghost of 50 ids
  const TraceStats two_q = simulate("2q", trace, 100);
  const TraceStats fifo = simulate("fifo", trace, 100);
  EXPECT_EQ(two_q.ghost_hits, 0u);
  EXPECT_EQ(two_q.hits, 3000u);
  EXPECT_EQ(two_q.misses, 3000u);
  EXPECT_EQ(two_q.hits, fifo.hits);
  EXPECT_EQ(two_q.misses, fifo.misses);
  EXPECT_EQ(two_q.hit_locks, 0u);  // no page in Am, so no lock on a hit
}

TEST(CacheGhostHits, APageBackFromA1outEntersAmAndOutlivesFifo) {
  // Cache 8: A1in 2, A1out 4 ids. 1..9 fills the cache and evicts 1 (its id
  // into A1out); 1 returns: a ghost hit, into Am. Eight new pages then push
  // the others out of A1in, while 1 stays in Am: its third request hits under
  // 2Q. FIFO has evicted it by then (8 insertions after it).
  std::vector<u64> trace;
  for (u64 id = 1; id <= 9; ++id) trace.push_back(id);
  trace.push_back(1);
  for (u64 id = 10; id <= 17; ++id) trace.push_back(id);
  trace.push_back(1);
  const TraceStats two_q = simulate("2q", trace, 8);
  const TraceStats fifo = simulate("fifo", trace, 8);
  EXPECT_EQ(two_q.ghost_hits, 1u);
  EXPECT_EQ(two_q.hits, 1u);
  EXPECT_EQ(two_q.misses, 18u);
  EXPECT_EQ(two_q.hit_locks, 1u);  // the hit in Am
  EXPECT_EQ(fifo.hits, 0u);
  EXPECT_EQ(fifo.misses, 19u);
  EXPECT_EQ(fifo.ghost_hits, 0u);
}

TEST(CacheGhostHits, FewerEvictionsThanFramesKeep2QExactlyFifoDespiteGhostHits) {
  // Cache 8: 9 evicts 1, 1 (a ghost hit, into Am) evicts 2, 2 (another) evicts
  // 3, then 1 hits. Three evictions, fewer than the frames: FIFO has not yet
  // come round to a page inserted after its first eviction, and 2Q evicts
  // from A1in (over its quarter) in the same order, so Am's pages are never
  // the difference. The full profile's 10 warehouses at 50% are this case.
  std::vector<u64> trace;
  for (u64 id = 1; id <= 9; ++id) trace.push_back(id);
  trace.insert(trace.end(), {1, 2, 1});
  const TraceStats two_q = simulate("2q", trace, 8);
  const TraceStats fifo = simulate("fifo", trace, 8);
  EXPECT_EQ(two_q.ghost_hits, 2u);
  EXPECT_EQ(two_q.hit_locks, 1u);  // 1's hit is in Am
  EXPECT_EQ(two_q.hits, 1u);
  EXPECT_EQ(two_q.misses, 11u);
  EXPECT_EQ(two_q.hits, fifo.hits);
  EXPECT_EQ(two_q.misses, fifo.misses);
}

TEST(CacheGhostHits, WarmupGhostHitsAreNotCounted) {
  std::vector<u64> trace;
  for (u64 id = 1; id <= 9; ++id) trace.push_back(id);
  trace.push_back(1);  // the ghost hit, request 10
  EXPECT_EQ(simulate("2q", trace, 8, 9).ghost_hits, 1u);
  EXPECT_EQ(simulate("2q", trace, 8, 10).ghost_hits, 0u);
}

// `hot` pages, then `scan` pages never seen before, `rounds` times.
std::vector<u64> hot_between_scans(u64 hot, u64 scan, u64 rounds) {
  std::vector<u64> trace(rounds * (hot + scan));
  for (u64 r = 0; r < rounds; ++r) {
    auto round = trace.begin() + static_cast<std::ptrdiff_t>(r * (hot + scan));
    std::iota(round, round + static_cast<std::ptrdiff_t>(hot), u64{0});
    std::iota(round + static_cast<std::ptrdiff_t>(hot), round + static_cast<std::ptrdiff_t>(hot + scan),
              1'000'000 + r * scan);
  }
  return trace;
}

TEST(CacheGhostHits, OnlyThePoliciesWithAGhostReportThem) {
  // Cache 100: each scan pushes the hot pages out, and they come back from the ghost.
  const auto trace = hot_between_scans(50, 100, 50);
  EXPECT_GT(simulate("2q", trace, 100).ghost_hits, 0u);
  EXPECT_GT(simulate("s3fifo", trace, 100).ghost_hits, 0u);
  for (const char* name : {"lru", "fifo", "clock", "sieve", "soqol"}) EXPECT_EQ(simulate(name, trace, 100).ghost_hits, 0u) << name;
}

}  // namespace
}  // namespace dbrepro::cache
