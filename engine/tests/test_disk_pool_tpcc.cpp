// TPC-C on the disk-backed stack (E5): with the pool at 10% of the database
// the run reads pages from the file and writes dirty ones back, and the
// consistency conditions hold; the record names the policy; the recording
// stack writes the reference string, and the simulator replaying it with
// the pool's frame count comes within 1% of the pool's misses.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <unistd.h>

#include "cache/simulator.hpp"
#include "cache/trace_file.hpp"
#include "driver/tpcc/run.hpp"

namespace dbrepro::tpcc {
namespace {

RunConfig disk_config(const std::string& policy) {
  RunConfig c;
  c.stack = "disk";
  c.cache_policy = policy;
  c.pool_fraction = 0.1;
  c.warehouses = 1;
  c.transactions = 1500;
  c.progress_every = 500;
  return c;
}

TEST(DiskPoolTpcc, TenPercentPoolReadsWritesAndStaysConsistent) {
  for (const char* policy : {"lru", "soqol"}) {
    const RunResult r = run(disk_config(policy));
    EXPECT_EQ(r.pool.policy, policy);
    EXPECT_EQ(r.transactions, 1500u);
    EXPECT_NEAR(r.pool.fraction(), 0.1, 0.01);
    EXPECT_GT(r.pool.reads, 0u) << policy;
    EXPECT_GT(r.pool.writes, 0u) << policy;
    EXPECT_GT(r.pool.hits, r.pool.misses) << policy;
    EXPECT_EQ(r.pool.hit_locks, std::string(policy) == "lru" ? r.pool.hits : 0u);
    ASSERT_FALSE(r.consistency.empty());
    for (const auto& c : r.consistency) EXPECT_TRUE(c.passed) << policy << " condition " << c.condition << ": " << c.detail;
  }
}

// Several terminals share the pool: the full mix at 10% stays consistent.
TEST(DiskPoolTpcc, TerminalsAtTenPercentPoolStayConsistent) {
  for (const char* policy : {"lru", "soqol"}) {
    RunConfig c = disk_config(policy);
    c.terminals = 4;
    c.variant = Variant::kSpec;
    c.mix = {45, 43, 4, 4, 4};
    c.transactions = 2000;
    const RunResult r = run(c);
    u64 done = 0, retries = 0;
    for (const auto& t : r.per_type) {
      done += t.commits + t.aborts;
      retries += t.retries;
    }
    EXPECT_EQ(done, r.transactions) << policy;
    EXPECT_GE(r.transactions, 2000u) << policy;
    // Deadlock victims that restart at once livelock (hundreds of thousands
    // of retries, each leaving dead records); with the backoff a few dozen.
    EXPECT_LT(retries, r.transactions) << policy;
    EXPECT_GT(r.pool.misses, 0u) << policy;
    ASSERT_FALSE(r.consistency.empty());
    for (const auto& cc : r.consistency)
      EXPECT_TRUE(cc.passed) << policy << " condition " << cc.condition << ": " << cc.detail;
  }
}

TEST(DiskPoolTpcc, RecordedTraceReplaysToThePoolsCounts) {
  RunConfig c = disk_config("fifo");
  c.transactions = 500;
  c.trace_path = ::testing::TempDir() + "tpcc-trace-" + std::to_string(::getpid()) + ".txt";
  const RunResult r = run(c);
  const auto ids = cache::read_trace(c.trace_path, cache::TraceFormat::kPlainText);
  std::remove(c.trace_path.c_str());
  ASSERT_GT(ids.size(), 500u * 10);
  EXPECT_EQ(ids.size(), r.pool.hits + r.pool.misses);  // every fix, and every new page
  // The pool skips pages pinned at eviction time (a B+tree parent while its
  // child is read), the simulator has no pins: the counts agree closely.
  const auto replay = cache::simulate("fifo", ids, static_cast<u32>(r.pool.frames));
  EXPECT_NEAR(static_cast<double>(replay.misses), static_cast<double>(r.pool.misses), 0.01 * r.pool.misses);
  EXPECT_EQ(replay.hits + replay.misses, r.pool.hits + r.pool.misses);
}

TEST(DiskPoolTpcc, BadOptionsNameTheParameter) {
  RunConfig c = disk_config("arc");
  EXPECT_THROW(validate(c), std::invalid_argument);
  c = disk_config("lru");
  c.pool_fraction = 0;
  EXPECT_THROW(validate(c), std::invalid_argument);
  c = disk_config("lru");
  c.stack = "bare";
  c.trace_path = "/tmp/x";
  EXPECT_THROW(validate(c), std::invalid_argument);
  c = disk_config("lru");
  c.terminals = 2;
  c.trace_path = "/tmp/x";
  EXPECT_THROW(validate(c), std::invalid_argument);
}

}  // namespace
}  // namespace dbrepro::tpcc
