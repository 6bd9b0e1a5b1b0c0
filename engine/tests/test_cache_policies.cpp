// Tests of the replacement policies (cache/) through the trace simulator:
// hand-checked miss counts on short traces, properties every policy must
// keep (cold misses only when everything fits, a loop one larger than the
// cache defeats LRU and FIFO), pinned slots never chosen, scan resistance of
// the FIFO family with a ghost, the SoQoL cache's lock-free hits and
// re-warming, and trace files in libCacheSim's formats (or an error naming the line).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <numeric>
#include <string>
#include <utility>
#include <unistd.h>
#include <vector>

#include "cache/simulator.hpp"
#include "cache/trace_file.hpp"
#include "common/random.hpp"

namespace dbrepro::cache {
namespace {

std::vector<u64> zipf_like(size_t n, u64 universe, u64 seed) {
  // A skewed trace: the product of two uniforms favours small ids.
  Random rng(seed);
  std::vector<u64> ids(n);
  for (auto& id : ids) {
    const double u = rng.unit() * rng.unit() * rng.unit();
    id = static_cast<u64>(u * static_cast<double>(universe));
  }
  return ids;
}

TEST(CachePolicies, HandCheckedShortTrace) {
  const std::vector<u64> trace = {1, 2, 3, 1, 4, 2, 1};
  // LRU: 1 2 3 miss, 1 hit, 4 evicts 2, 2 evicts 3, 1 hit.
  EXPECT_EQ(simulate("lru", trace, 3).misses, 5u);
  // FIFO: 4 evicts 1, 2 hits, 1 evicts 2.
  EXPECT_EQ(simulate("fifo", trace, 3).misses, 5u);
  EXPECT_EQ(simulate("fifo", trace, 3).hits, 2u);
  // CLOCK: 4 clears 1's bit and evicts 2; 2 evicts 3; 1 hits.
  EXPECT_EQ(simulate("clock", trace, 3).misses, 5u);
  // SIEVE: 4 passes 1 (visited) and evicts 2; 2 evicts 3; 1 hits.
  EXPECT_EQ(simulate("sieve", trace, 3).misses, 5u);
}

TEST(CachePolicies, WarmupRequestsFillTheCacheUncounted) {
  const std::vector<u64> trace = {1, 2, 3, 1, 4, 2, 1};
  // LRU of 3 after 1 2 3 (uncounted): 1 hit, 4 evicts 2, 2 evicts 3, 1 hits.
  const TraceStats s = simulate("lru", trace, 3, 3);
  EXPECT_EQ(s.requests, 4u);
  EXPECT_EQ(s.hits, 2u);
  EXPECT_EQ(s.misses, 2u);
  EXPECT_EQ(s.hit_locks, 2u);
  EXPECT_EQ(simulate("lru", trace, 3, trace.size()).requests, 0u);
  EXPECT_THROW(simulate("lru", trace, 3, trace.size() + 1), std::invalid_argument);
}

TEST(CachePolicies, EveryPolicyOnlyColdMissesWhenEverythingFits) {
  const auto trace = zipf_like(20000, 500, 7);
  std::vector<bool> seen(500);
  u64 distinct = 0;
  for (u64 id : trace) distinct += !seen[id] ? (seen[id] = true, 1) : 0;
  for (const char* name : kPolicyNames) {
    const TraceStats s = simulate(name, trace, 500);
    EXPECT_EQ(s.requests, trace.size()) << name;
    EXPECT_EQ(s.hits + s.misses, s.requests) << name;
    EXPECT_EQ(s.misses, distinct) << name;
  }
}

TEST(CachePolicies, LoopOneLargerThanCacheDefeatsLruAndFifo) {
  std::vector<u64> trace;
  for (int round = 0; round < 20; ++round)
    for (u64 id = 0; id < 101; ++id) trace.push_back(id);
  EXPECT_EQ(simulate("lru", trace, 100).hits, 0u);
  EXPECT_EQ(simulate("fifo", trace, 100).hits, 0u);
  // No page is hit before it leaves, so no bit is ever set: CLOCK and SIEVE
  // are FIFO here.
  EXPECT_EQ(simulate("clock", trace, 100).hits, 0u);
  EXPECT_EQ(simulate("sieve", trace, 100).hits, 0u);
}

TEST(CachePolicies, ScanResistanceOfTheGhostPolicies) {
  // A hot set of 50 pages re-read between scans of never-repeated pages.
  std::vector<u64> trace;
  u64 next_cold = 1'000'000;
  for (int round = 0; round < 200; ++round) {
    for (u64 id = 0; id < 50; ++id) trace.push_back(id);
    for (int i = 0; i < 100; ++i) trace.push_back(next_cold++);
  }
  const u64 lru = simulate("lru", trace, 100).hits;
  EXPECT_EQ(lru, 0u);  // every scan flushes the hot set
  // The ghost recognises the hot pages when they return: most stay.
  EXPECT_GT(simulate("s3fifo", trace, 100).hits, 199u * 35);
  EXPECT_GT(simulate("2q", trace, 100).hits, 199u * 35);
  // SoQoL keeps no ghost: a page not requested within one cache's worth of
  // misses leaves, as under LRU.
  EXPECT_EQ(simulate("soqol", trace, 100).hits, 0u);
}

TEST(CachePolicies, SkewedTraceHitRatiosAreOrdered) {
  const auto trace = zipf_like(200000, 20000, 3);
  const TraceStats fifo = simulate("fifo", trace, 2000);
  const TraceStats lru = simulate("lru", trace, 2000);
  const TraceStats soqol = simulate("soqol", trace, 2000);
  EXPECT_GT(lru.hits, fifo.hits);
  EXPECT_GE(soqol.hits, lru.hits);
  // Locks on the hit path: LRU one per hit, the FIFO family none.
  EXPECT_EQ(lru.hit_locks, lru.hits);
  EXPECT_EQ(soqol.hit_locks, 0u);
  for (const char* name : {"fifo", "clock", "sieve", "s3fifo"}) EXPECT_EQ(simulate(name, trace, 2000).hit_locks, 0u);
}

template <class P>
void never_evicts_a_pinned_slot() {
  P policy(64);
  for (u32 s = 0; s < 64; ++s) policy.insert(s, s);
  for (u32 s = 0; s < 64; s += 3) policy.hit(s);
  // Slots 0..9 are pinned: every eviction must choose another slot.
  for (int round = 0; round < 200; ++round) {
    const u32 victim = policy.evict([](u32 s) { return s >= 10; });
    ASSERT_GE(victim, 10u) << P::kName;
    policy.miss(1000 + round);
    policy.insert(victim, 1000 + round);
  }
}

TEST(CachePolicies, PinnedSlotsAreNeverEvicted) {
  never_evicts_a_pinned_slot<Lru>();
  never_evicts_a_pinned_slot<Fifo>();
  never_evicts_a_pinned_slot<Clock>();
  never_evicts_a_pinned_slot<Sieve>();
  never_evicts_a_pinned_slot<S3Fifo>();
  never_evicts_a_pinned_slot<TwoQ>();
  never_evicts_a_pinned_slot<Soqol>();
}

TEST(CachePolicies, EvictionWithEverySlotPinnedThrows) {
  Fifo fifo(8);
  for (u32 s = 0; s < 8; ++s) fifo.insert(s, s);
  EXPECT_THROW(fifo.evict([](u32) { return false; }), std::runtime_error);
  Soqol soqol(8);
  for (u32 s = 0; s < 8; ++s) soqol.insert(s, s);
  EXPECT_THROW(soqol.evict([](u32) { return false; }), std::runtime_error);
}

TEST(CachePolicies, SoqolRewarmsAColdPageRequestedAgain) {
  Soqol soqol(20);  // cold area: 2 pages
  for (u32 s = 0; s < 20; ++s) soqol.insert(s, s);
  // The first eviction cools the oldest pages of ring 0 (slots 0, 1).
  const u32 first = soqol.evict(claim_any);
  EXPECT_EQ(first, 0u);
  soqol.insert(first, 100);
  soqol.hit(1);  // slot 1 waits in the cold area: requested again
  const u32 second = soqol.evict(claim_any);
  EXPECT_NE(second, 1u);
  EXPECT_EQ(soqol.rewarmed(), 1u);
}

// The cold ring holds clean pages: every page entering it is handed to the
// cache's clean() first, so a page freed from it was cleaned; a page clean()
// refuses (latched exclusively: being changed) stays hot and is never freed.
TEST(CachePolicies, SoqolCleansEveryPageEnteringTheColdRing) {
  Soqol soqol(40);  // cold area: 4 pages
  std::vector<u32> handed;
  const auto clean = [&](u32 s) {
    handed.push_back(s);
    return s != 3;  // slot 3 is being changed whenever it is looked at
  };
  for (u32 s = 0; s < 40; ++s) soqol.insert(s, s);
  for (u64 id = 100; id < 400; ++id) {
    const u32 victim = soqol.evict(claim_any, clean);
    ASSERT_NE(victim, 3u);
    ASSERT_NE(std::find(handed.begin(), handed.end(), victim), handed.end()) << "slot " << victim << " freed uncleaned";
    handed.erase(std::find(handed.begin(), handed.end(), victim));
    soqol.insert(victim, id);
  }
  EXPECT_NE(std::find(handed.begin(), handed.end(), 3u), handed.end()) << "slot 3 was offered and refused";
}

TEST(CachePolicies, UnknownPolicyNamesTheAllowedOnes) {
  try {
    simulate("arc", std::vector<u64>{1}, 4);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("allowed: lru, fifo, clock, sieve, s3fifo, 2q, soqol"), std::string::npos);
  }
}

TEST(CacheTraceFile, EveryFormatRoundTrips) {
  const std::vector<u64> ids = {5, 7, 5, 1ull << 40, 7};
  for (const char* fmt : kTraceFormatNames) {
    const std::string path = ::testing::TempDir() + "trace-" + fmt + "-" + std::to_string(::getpid());
    write_trace(path, ids, parse_trace_format(fmt), 8192);
    EXPECT_EQ(read_trace(path, parse_trace_format(fmt)), ids) << fmt;
    std::remove(path.c_str());
  }
  EXPECT_THROW(parse_trace_format("parquet"), std::invalid_argument);
}

// A trace written by hand: the lines libCacheSim reads whole are read as it
// reads them; a line it would read in part (or abort on) is an error that
// names the file and the line, never a silent end of the replay.
std::string write_text(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + name + "-" + std::to_string(::getpid());
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

std::string read_error(const std::string& path, TraceFormat format) {
  try {
    read_trace(path, format);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

TEST(CacheTraceFile, TextReadsWhatLibCacheSimReads) {
  const std::string path = write_text("trace-ok.txt", "3\n\n  4 \r\n0x10\n010\n18446744073709551615\n");
  EXPECT_EQ(read_trace(path, TraceFormat::kPlainText), (std::vector<u64>{3, 4, 16, 8, ~u64{0}}));
  std::remove(path.c_str());
}

TEST(CacheTraceFile, TextLineItCannotReadIsAnErrorNamingFileAndLine) {
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"obj_id\n1\n2\n", "line 1: 'obj_id'"},   // a header
      {"1\n7,8192\n2\n", "line 2: '7,8192'"},   // an id,size pair
      {"1\n2\n\n2.5\n", "line 4: '2.5'"},       // not an integer
      {"-1\n", "line 1: '-1'"},
      {"18446744073709551616\n", "line 1:"},   // past u64
  };
  for (const auto& [text, expected] : bad) {
    const std::string path = write_text("trace-bad.txt", text);
    const std::string error = read_error(path, TraceFormat::kPlainText);
    EXPECT_NE(error.find("trace '" + path + "' " + expected), std::string::npos) << text << " -> " << error;
    std::remove(path.c_str());
  }
}

TEST(CacheTraceFile, CsvTakesFieldOneAndAHeaderOnLineOne) {
  const std::string path = write_text("trace-ok.csv", "obj_id,obj_size\n3,8192\n4\n\n5,1,extra\n");
  EXPECT_EQ(read_trace(path, TraceFormat::kCsv), (std::vector<u64>{3, 4, 5}));
  std::remove(path.c_str());
  const std::string later = write_text("trace-bad.csv", "3,8192\nobj_id,obj_size\n");
  EXPECT_NE(read_error(later, TraceFormat::kCsv).find("line 2: 'obj_id,obj_size'"), std::string::npos);
  std::remove(later.c_str());
}

TEST(CacheTraceFile, OracleGeneralWithATornRecordIsAnError) {
  const std::string path = ::testing::TempDir() + "trace-torn-" + std::to_string(::getpid());
  const std::vector<u64> ids = {1, 2};
  write_trace(path, ids, TraceFormat::kOracleGeneral, 8192);
  std::ofstream(path, std::ios::binary | std::ios::app) << "xyz";
  EXPECT_NE(read_error(path, TraceFormat::kOracleGeneral).find("3 bytes after the last whole"), std::string::npos);
  std::remove(path.c_str());
}

}  // namespace
}  // namespace dbrepro::cache
