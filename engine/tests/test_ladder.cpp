// Tests of E1's removal ladder (stack/ladder.hpp, driver/tpcc/run.cpp): every stack
// -- the bare paged engine with either key compare, steps 0 to 10, the optimal
// kernel -- runs the same paper-mix TPC-C transactions with the same outcome
// (identical commit and abort counts, all four consistency conditions), and
// differs from the previous step in exactly the component it removes; the
// flushing log writes and syncs, the others do not; page sizes and key
// compares resolve per step; validation; the perf meter (which needs a PMU;
// skipped where there is none). Also the optimal kernel's B-tree against
// std::map.
#include <dirent.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "common/random.hpp"
#include "driver/result_json.hpp"
#include "driver/tpcc/run.hpp"
#include "driver/tpcc/run_config.hpp"
#include "driver/tpcc/run_stack.hpp"
#include "driver/tpcc/stack_registry.hpp"
#include "kernel/mem_btree.hpp"
#include "measure/perf_counters.hpp"
#include "stack/ladder.hpp"

namespace dbrepro::tpcc {
namespace {

constexpr int kNewOrder = static_cast<int>(TxnType::kNewOrder);
constexpr int kPayment = static_cast<int>(TxnType::kPayment);
constexpr u64 kTransactions = 2000;

RunConfig ladder_config(const std::string& stack, const std::string& key_compare = "auto") {
  RunConfig c;
  c.warehouses = 1;
  c.transactions = kTransactions;
  c.variant = Variant::kPaper;
  c.seed = 1;
  c.stack = stack;
  c.key_compare = key_compare;
  return c;
}

// Each configuration is run once per process (ctest runs every test in a
// process of its own; a test reads at most a few runs).
const RunResult& cached_run(const RunConfig& config) {
  static std::map<std::string, RunResult> cache;
  RunResult blank;
  blank.config = config;
  const std::string key = to_json(blank);
  auto it = cache.find(key);
  if (it == cache.end()) it = cache.emplace(key, run(config)).first;
  return it->second;
}

using Counts = std::vector<std::pair<u64, u64>>;  // (commits, aborts) per type
Counts counts(const RunResult& r) {
  Counts c;
  for (const TxnStats& s : r.per_type) c.push_back({s.commits, s.aborts});
  return c;
}

std::string component(const RunResult& r, const std::string& name) {
  for (const auto& [k, v] : r.components)
    if (k == name) return v;
  return "<missing " + name + ">";
}

u64 total_commits(const RunResult& r) {
  u64 n = 0;
  for (const TxnStats& s : r.per_type) n += s.commits;
  return n;
}

// ---------------------------------------------------------------------------
// Every stack runs the paper mix to the same, consistent end.

struct StackCase {
  std::string stack;
  std::string key_compare;
};
std::string case_name(const ::testing::TestParamInfo<StackCase>& info) {
  return info.param.stack + (info.param.key_compare == "auto" ? "" : "_" + info.param.key_compare);
}

class EveryStack : public ::testing::TestWithParam<StackCase> {};

TEST_P(EveryStack, PaperMixCommitsAndIsConsistent) {
  const RunResult& r = cached_run(ladder_config(GetParam().stack, GetParam().key_compare));
  EXPECT_EQ(r.transactions, kTransactions);
  EXPECT_FALSE(r.interrupted);
  u64 attempted = 0;
  for (const TxnStats& s : r.per_type) attempted += s.commits + s.aborts;
  EXPECT_EQ(attempted, kTransactions);
  for (int t = 2; t < kTxnTypeCount; ++t) EXPECT_EQ(r.per_type[t].commits + r.per_type[t].aborts, 0u);
  // Only the ~1% user aborts of New Order (an unused item); Payment never aborts.
  EXPECT_EQ(r.per_type[kPayment].aborts, 0u);
  const u64 no = r.per_type[kNewOrder].commits + r.per_type[kNewOrder].aborts;
  EXPECT_NEAR(static_cast<double>(no) / kTransactions, 0.5, 0.05);
  EXPECT_GT(r.per_type[kNewOrder].aborts, 0u);
  EXPECT_LT(static_cast<double>(r.per_type[kNewOrder].aborts) / static_cast<double>(no), 0.03);
  ASSERT_EQ(r.consistency.size(), kCheckedConditions.size());
  for (const ConsistencyCheck& c : r.consistency) EXPECT_TRUE(c.passed) << "condition " << c.condition << ": " << c.detail;
  EXPECT_TRUE(r.consistent());
  EXPECT_GT(r.elapsed_seconds, 0.0);
  EXPECT_GT(r.database_bytes, 100u << 20) << "a loaded warehouse is ~100 MB or more";
  if (r.step >= 0 && r.step < 9) {
    EXPECT_EQ(r.database_bytes, r.database_pages * r.config.page_size);
  } else if (r.step != kOptimalStep) {
    // Steps 9, 10 and the bare stack ("page access" removed): B-tree nodes
    // on pages, records in malloc'd blocks.
    EXPECT_GT(r.database_bytes, r.database_pages * r.config.page_size);
  } else {
    EXPECT_EQ(r.database_pages, 0u) << "the optimal kernel has no pages";
  }

  // The same logical work as the bare engine (and so as every other stack).
  const RunResult& bare = cached_run(ladder_config("bare", "integer"));
  EXPECT_EQ(counts(r), counts(bare)) << "the stack changed what the transactions did";

  // The resolved configuration and labels.
  const int step = stack_step(GetParam().stack);
  EXPECT_EQ(r.step, step);
  EXPECT_EQ(r.config.stack, GetParam().stack);
  if (step < 0) {
    EXPECT_EQ(r.config.page_size, 8192u);
    EXPECT_EQ(r.config.key_compare, GetParam().key_compare == "auto" ? "integer" : GetParam().key_compare);
    EXPECT_EQ(r.stack_label, "");
    EXPECT_EQ(component(r, "key_compare"), r.config.key_compare);
  } else {
    EXPECT_EQ(r.stack_label, kLadder[step].label);
    EXPECT_EQ(r.config.page_size, step <= 7 ? 8192u : 32768u) << "steps 0-7 use 8 KB pages, 8-10 32 KB";
    EXPECT_EQ(r.config.key_compare, step == 0 ? "generic" : "integer") << "only step 0 evaluates keys generically";
    if (step != kOptimalStep) {
      EXPECT_EQ(component(r, "key_compare"), r.config.key_compare);
    }
  }
  EXPECT_EQ(r.config.meter, "none");
  EXPECT_EQ(r.counters.meter, "none");
  EXPECT_EQ(r.counters.perf_error, PerfCounters::probe()) << "a run without meter reports why perf is unavailable";
  EXPECT_FALSE(r.components.empty());
}

INSTANTIATE_TEST_SUITE_P(Ladder, EveryStack,
                         ::testing::Values(StackCase{"bare", "integer"}, StackCase{"bare", "generic"},
                                           StackCase{"step0", "auto"}, StackCase{"step1", "auto"},
                                           StackCase{"step2", "auto"}, StackCase{"step3", "auto"},
                                           StackCase{"step4", "auto"}, StackCase{"step5", "auto"},
                                           StackCase{"step6", "auto"}, StackCase{"step7", "auto"},
                                           StackCase{"step8", "auto"}, StackCase{"step9", "auto"},
                                           StackCase{"step10", "auto"}, StackCase{"optimal", "auto"}),
                         case_name);

// ---------------------------------------------------------------------------
// The components of each step.

TEST(Ladder, EachStepRemovesExactlyItsComponent) {
  // Component descriptions straight from the stack types (no run needed).
  const std::vector<std::vector<std::pair<std::string, std::string>>> steps = {
      Step0::describe(), Step1::describe(), Step2::describe(), Step3::describe(),
      Step4::describe(), Step5::describe(), Step6::describe(), Step7::describe(),
      Step8::describe(), Step9::describe(), Step10::describe()};
  const std::map<std::string, std::string> full = {
      {"key_compare", "generic"},         {"disk_log", "flush at commit"}, {"main_log", "write-ahead log"},
      {"lsn", "page LSNs"},               {"locking", "lock manager"},     {"latching", "latching"},
      {"directory", "directory per transaction"}, {"page_access", "buffer pool"},
      {"sessions", "per-transaction sessions"}};
  const std::map<std::string, std::string> step0(steps[0].begin(), steps[0].end());
  EXPECT_EQ(step0, full) << "step 0 is the full stack";
  // What each later step changes (step 8 changes the page size only).
  const std::vector<std::pair<std::string, std::string>> removed = {
      {"", ""},
      {"key_compare", "integer"},
      {"disk_log", "group commit, never flushed"},
      {"main_log", "no log"},
      {"lsn", "no LSNs"},
      {"locking", "no locking"},
      {"latching", "no latching"},
      {"directory", "cached directory"},
      {"", ""},
      {"page_access", "direct pages"},
      {"sessions", "one session"}};
  for (size_t s = 1; s < steps.size(); ++s) {
    SCOPED_TRACE("step " + std::to_string(s) + " (" + kLadder[s].label + ")");
    const std::map<std::string, std::string> prev(steps[s - 1].begin(), steps[s - 1].end());
    const std::map<std::string, std::string> cur(steps[s].begin(), steps[s].end());
    ASSERT_EQ(cur.size(), 9u);
    std::vector<std::string> changed;
    for (const auto& [k, v] : cur)
      if (prev.at(k) != v) changed.push_back(k);
    if (removed[s].first.empty()) {
      EXPECT_TRUE(changed.empty()) << changed.size() << " components changed";
    } else {
      ASSERT_EQ(changed, std::vector<std::string>{removed[s].first});
      EXPECT_EQ(cur.at(removed[s].first), removed[s].second);
    }
  }
  // The bare stack is step 10 with a choice of key compare.
  EXPECT_EQ((BareStack<IntegerKeyCompare>::describe()), Step10::describe());
}

TEST(Ladder, RunsReportTheirComponents) {
  const RunResult& step4 = cached_run(ladder_config("step4"));
  const RunResult& step5 = cached_run(ladder_config("step5"));
  EXPECT_EQ(component(step4, "locking"), "lock manager");
  EXPECT_EQ(component(step5, "locking"), "no locking");
  EXPECT_EQ(component(step5, "latching"), "latching");
  EXPECT_EQ(step5.components, Step5::describe());
  const RunResult& optimal = cached_run(ladder_config("optimal"));
  ASSERT_EQ(optimal.components.size(), 1u);
  EXPECT_EQ(optimal.components[0].first, "kernel");
  EXPECT_EQ(optimal.stack_label, "optimal");
  EXPECT_EQ(optimal.step, kOptimalStep);
  const std::string json = to_json(step5);
  EXPECT_NE(json.find("\"locking\":\"no locking\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"stack\":\"step5\""), std::string::npos);
  EXPECT_NE(json.find("\"stack_label\":\"locking\""), std::string::npos);
  EXPECT_NE(json.find("\"step\":5"), std::string::npos);
}

TEST(Ladder, PageSizesAndKeyComparesResolvePerStep) {
  for (int step = 0; step <= 10; ++step) {
    const RunConfig r = resolve(ladder_config("step" + std::to_string(step)));
    EXPECT_EQ(r.page_size, step <= 7 ? 8192u : 32768u) << "step " << step;
    EXPECT_EQ(r.key_compare, step == 0 ? "generic" : "integer") << "step " << step;
    EXPECT_EQ(kLadder[step].step, step);
  }
  EXPECT_EQ(resolve(ladder_config("bare")).page_size, 8192u);
  EXPECT_EQ(resolve(ladder_config("bare")).key_compare, "integer");
  EXPECT_EQ(resolve(ladder_config("bare", "generic")).key_compare, "generic");
  EXPECT_EQ(resolve(ladder_config("optimal")).key_compare, "integer");
  // An explicit page size overrides the step's.
  RunConfig c = ladder_config("step9");
  c.page_size = 8192;
  EXPECT_EQ(resolve(c).page_size, 8192u);
  EXPECT_EQ(stack_step("step0"), 0);
  EXPECT_EQ(stack_step("step10"), 10);
  EXPECT_EQ(stack_step("optimal"), kOptimalStep);
  EXPECT_EQ(stack_step("bare"), -1);
}

TEST(Ladder, SmallPagesStepUsesFewerLargerPages) {
  const RunResult& step7 = cached_run(ladder_config("step7"));
  const RunResult& step8 = cached_run(ladder_config("step8"));
  EXPECT_EQ(step7.components, step8.components) << "step 8 is step 7's stack";
  EXPECT_EQ(step8.config.page_size, 32768u);
  EXPECT_LT(step8.database_pages * 3, step7.database_pages) << "32 KB pages: about a quarter as many";
}

// ---------------------------------------------------------------------------
// Logging.

TEST(Ladder, FlushingLogWritesAndSyncsAtEveryCommit) {
  for (const char* stack : {"step0", "step1"}) {
    SCOPED_TRACE(stack);
    const RunResult& r = cached_run(ladder_config(stack));
    EXPECT_GT(r.log_bytes_written, 0u);
    // One sync per committed transaction, plus the consistency check's commit;
    // an abort's record goes out with the next commit (nothing to force).
    EXPECT_EQ(r.log_syncs, total_commits(r) + 1);
    // Every commit writes at least its updates' or creations' records and its commit record.
    EXPECT_GT(r.log_bytes_written, total_commits(r) * 4 * sizeof(LogRecordHeader));
  }
  // Without the consistency check: exactly one sync per commit.
  RunConfig c = ladder_config("step0");
  c.check_consistency = false;
  c.transactions = 300;
  const RunResult r = run(c);
  EXPECT_EQ(r.log_syncs, total_commits(r));
  // Same work, same log: step 1 writes exactly what step 0 writes (keys do not change records).
  RunConfig c1 = c;
  c1.stack = "step1";
  EXPECT_EQ(run(c1).log_bytes_written, r.log_bytes_written);
}

TEST(Ladder, OtherStepsWriteNoLog) {
  for (const char* stack : {"step2", "step3", "step5", "step10", "optimal"}) {
    SCOPED_TRACE(stack);
    const RunResult& r = cached_run(ladder_config(stack));
    EXPECT_EQ(r.log_bytes_written, 0u);
    EXPECT_EQ(r.log_syncs, 0u);
  }
}

int entries_in(const std::string& dir) {
  int n = 0;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (dirent* e = ::readdir(d))
      if (std::string(e->d_name) != "." && std::string(e->d_name) != "..") ++n;
    ::closedir(d);
  }
  return n;
}

TEST(Ladder, LogFileGoesToLogDirAndIsRemoved) {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/dbrepro-test-logdir-XXXXXX";
  ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
  const std::string dir = pattern;
  RunConfig c = ladder_config("step0");
  c.transactions = 200;
  c.log_dir = dir;
  int during = -1;
  c.progress_every = 100;
  const RunResult r = run(c, [&](u64, u64) {
    during = entries_in(dir);
    return true;
  });
  EXPECT_EQ(during, 1) << "the log file is not in log_dir during the run";
  EXPECT_EQ(entries_in(dir), 0) << "the log file was left behind";
  EXPECT_GT(r.log_bytes_written, 0u);
  EXPECT_EQ(r.config.log_dir, dir);
  // A stack without a flushing log creates no file.
  c.stack = "step2";
  during = -1;
  run(c, [&](u64, u64) {
    during = entries_in(dir);
    return true;
  });
  EXPECT_EQ(during, 0);
  ::rmdir(dir.c_str());
  // An unusable log_dir is reported as such.
  c.stack = "step0";
  c.log_dir = dir + "/does/not/exist";
  try {
    run(c);
    ADD_FAILURE() << "a run with an unusable log_dir went ahead";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("log_dir"), std::string::npos) << e.what();
  }
}

// ---------------------------------------------------------------------------
// The spec variant with two warehouses at both ends of the ladder.

TEST(Ladder, SpecVariantTwoWarehouses) {
  RunConfig c = ladder_config("step0");
  c.variant = Variant::kSpec;
  c.warehouses = 2;
  c.transactions = 1000;
  const RunResult a = run(c);
  c.stack = "optimal";
  const RunResult b = run(c);
  for (const RunResult* r : {&a, &b}) {
    SCOPED_TRACE(r->config.stack);
    EXPECT_TRUE(r->consistent());
    for (const ConsistencyCheck& k : r->consistency) EXPECT_TRUE(k.passed) << k.condition << ": " << k.detail;
    EXPECT_EQ(r->transactions, 1000u);
    EXPECT_EQ(r->per_type[kPayment].commits + r->per_type[kNewOrder].commits + r->per_type[kNewOrder].aborts, 1000u);
  }
  EXPECT_EQ(counts(a), counts(b));
}

// ---------------------------------------------------------------------------
// Validation.

void expect_rejected(const RunConfig& c, const std::string& parameter) {
  try {
    validate(c);
    ADD_FAILURE() << "validate() accepted a bad " << parameter;
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(parameter), std::string::npos)
        << "message does not name '" << parameter << "': " << e.what();
  }
  EXPECT_THROW(run(c), std::invalid_argument);
}

TEST(LadderConfig, ValidateRejectsBadStacksAndCombinations) {
  for (const char* bad : {"step12", "foo", "step-1", "STEP1", "step", "optimal "}) {
    SCOPED_TRACE(bad);
    expect_rejected(ladder_config(bad), "stack");
  }
  expect_rejected(ladder_config("step3", "generic"), "key_compare");
  expect_rejected(ladder_config("step0", "integer"), "key_compare");
  expect_rejected(ladder_config("optimal", "generic"), "key_compare");
  EXPECT_NO_THROW(validate(ladder_config("step3", "integer")));
  EXPECT_NO_THROW(validate(ladder_config("step0", "generic")));
  EXPECT_NO_THROW(validate(ladder_config("bare", "generic")));
  RunConfig c = ladder_config("optimal");
  c.meter = "perf";
  expect_rejected(c, "meter");
  c.stack = "step11";  // another name of the optimal kernel
  expect_rejected(c, "meter");
  for (int step = 0; step <= 10; ++step) {
    RunConfig ok = ladder_config("step" + std::to_string(step));
    ok.meter = "perf";
    EXPECT_NO_THROW(validate(ok)) << "step " << step << " takes the perf meter";
  }
}

// ---------------------------------------------------------------------------
// The perf meter.

std::array<u64, kPhaseCount> expected_calls(const RunResult& r);  // below

TEST(LadderPerf, WithoutCountersPerfMeterFailsClearly) {
  const std::string why = PerfCounters::probe();
  if (why.empty()) GTEST_SKIP() << "this machine has hardware counters";
  for (const char* stack : {"bare", "step0", "step6"}) {
    RunConfig c = ladder_config(stack);
    c.transactions = 100;
    c.meter = "perf";
    try {
      run(c);
      ADD_FAILURE() << stack << ": a perf-metered run went ahead without counters";
    } catch (const std::runtime_error& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("perf_event"), std::string::npos) << what;
      EXPECT_NE(what.find(why), std::string::npos) << "the message does not carry the errno: " << what;
    }
  }
  EXPECT_NE(why.find("perf_event_open"), std::string::npos) << why;
  EXPECT_NE(why.find("("), std::string::npos) << "no errno number in " << why;
}

TEST(LadderPerf, WithCountersEveryPhaseCountsInstructions) {
  const std::string why = PerfCounters::probe();
  if (!why.empty()) GTEST_SKIP() << "no hardware counters here: " << why;
  std::map<std::string, RunResult> results;
  for (const char* stack : {"step0", "step6", "step10", "bare"}) {
    SCOPED_TRACE(stack);
    RunConfig c = ladder_config(stack);
    c.transactions = 1000;
    c.meter = "perf";
    const RunResult r = run(c);
    EXPECT_EQ(r.counters.meter, "perf");
    EXPECT_EQ(r.counters.perf_error, "");
    EXPECT_GT(r.counters.read_cost_instructions, 0);
    EXPECT_GT(r.counters.read_cost_cycles, 0);
    i64 cycles = 0;
    for (int p = 0; p < kPhaseCount; ++p) {
      cycles += r.phases[p].cycles;
      if (kPhaseNames[p] == std::string("other")) continue;
      EXPECT_GT(r.phases[p].calls, 0u) << kPhaseNames[p];
      EXPECT_GT(r.phases[p].instructions, 0) << kPhaseNames[p];
    }
    EXPECT_GT(cycles, 0);
    // Exactly the measured transactions' engine calls.
    const auto expected = expected_calls(r);
    for (int p = 0; p < kPhaseCount; ++p) EXPECT_EQ(r.phases[p].calls, expected[p]) << kPhaseNames[p];
    EXPECT_GT(r.per_type[kNewOrder].instructions, 0);
    EXPECT_GT(r.per_type[kPayment].instructions, 0);
    // New Order does several times Payment's work per transaction.
    EXPECT_GT(r.per_type[kNewOrder].instructions / static_cast<i64>(r.per_type[kNewOrder].commits + 1),
              2 * r.per_type[kPayment].instructions / static_cast<i64>(r.per_type[kPayment].commits + 1));
    EXPECT_TRUE(r.consistent());
    results.emplace(stack, r);
  }
  // The same transactions make the same engine calls on every stack...
  for (int p = 0; p < kPhaseCount; ++p)
    EXPECT_EQ(results["step0"].phases[p].calls, results["step10"].phases[p].calls) << kPhaseNames[p];
  // ...and the full stack spends more instructions on them than the stripped one.
  EXPECT_GT(results["step0"].per_type[kPayment].instructions, results["step10"].per_type[kPayment].instructions);
  EXPECT_GT(results["step0"].phases[static_cast<int>(Phase::kCommit)].instructions,
            results["step6"].phases[static_cast<int>(Phase::kCommit)].instructions);
}

// ---------------------------------------------------------------------------
// What the phase meter sees. A meter that only counts calls shows which engine
// calls fall into the measured window; the paper-mix transactions make a known
// number of each (New Order: 23 lookups, 23 pin/unpin pairs, 11 updates,
// 12 record creations, 13 index inserts; Payment by id: 3 lookups, 3 pin/unpin
// pairs, 3 updates, 1 creation).

struct CallCountingMeter {
  struct Totals {
    i64 instructions = 0;
    i64 cycles = 0;
    u64 calls = 0;
  };
  std::array<Totals, kPhaseCount> counts{};
  void enter(Phase) {}
  void leave(Phase p) { ++counts[static_cast<int>(p)].calls; }
  const std::array<Totals, kPhaseCount>& totals() const { return counts; }
};

std::array<u64, kPhaseCount> expected_calls(const RunResult& r) {
  const u64 no_c = r.per_type[kNewOrder].commits, no_a = r.per_type[kNewOrder].aborts;
  const u64 pay = r.per_type[kPayment].commits;
  std::array<u64, kPhaseCount> e{};
  e[static_cast<int>(Phase::kBegin)] = no_c + no_a + pay;
  e[static_cast<int>(Phase::kCommit)] = no_c + no_a + pay;
  // An aborted New Order reads 9 items and misses the 10th (the unused item).
  e[static_cast<int>(Phase::kLookup)] = 23 * no_c + 10 * no_a + 3 * pay;
  e[static_cast<int>(Phase::kPin)] = 2 * (23 * no_c + 9 * no_a + 3 * pay);
  e[static_cast<int>(Phase::kUpdate)] = 11 * no_c + 3 * pay;
  e[static_cast<int>(Phase::kCreate)] = 12 * no_c + pay;
  e[static_cast<int>(Phase::kInsert)] = 13 * no_c;
  return e;
}

std::array<u64, kPhaseCount> metered_calls(bool check_consistency, RunResult* out) {
  RunConfig c = resolve(ladder_config("bare", "integer"));
  c.transactions = 1000;
  c.check_consistency = check_consistency;
  Engine<BareStack<IntegerKeyCompare>, CallCountingMeter> engine(EngineOptions{});
  *out = run_on(engine, c, {}, nullptr);
  // What the run reports: the meter's totals as they stood after the
  // transactions (the meter itself goes on counting the check's calls).
  std::array<u64, kPhaseCount> calls{};
  for (int p = 0; p < kPhaseCount; ++p) calls[p] = out->phases[p].calls;
  return calls;
}

TEST(LadderMeter, PhaseCallsOfThePaperMix) {
  RunResult r;
  const auto calls = metered_calls(/*check_consistency=*/false, &r);
  EXPECT_EQ(calls, expected_calls(r));
  EXPECT_GT(r.per_type[kNewOrder].aborts, 0u);
}

TEST(LadderMeter, ConsistencyCheckIsNotMetered) {
  // run_on() runs the consistency check on the same, still metered, engine:
  // its ~700,000 engine calls (scans of ORDER, NEW-ORDER, ORDER-LINE at W=1)
  // must not be charged to the measured transactions' phases.
  RunResult r;
  const auto calls = metered_calls(/*check_consistency=*/true, &r);
  ASSERT_TRUE(r.consistent());
  const auto expected = expected_calls(r);
  for (int p = 0; p < kPhaseCount; ++p)
    EXPECT_EQ(calls[p], expected[p]) << kPhaseNames[p] << ": the consistency check was metered";
}

// ---------------------------------------------------------------------------
// The optimal kernel's B-tree against std::map.

TEST(MemBTree, RandomOperationsMatchStdMap) {
  MemBTree tree;
  std::map<u64, void*> model;
  Random rng(314);
  auto value = [](u64 k, int op) { return reinterpret_cast<void*>(static_cast<uintptr_t>((k << 8) ^ static_cast<u64>(op) ^ 1)); };
  for (int op = 0; op < 200000; ++op) {
    // Phases: grow, shrink, mix. Keys collide often; some are extreme.
    const int phase = op < 80000 ? 0 : op < 140000 ? 1 : 2;
    u64 k = static_cast<u64>(rng.uniform(0, 29999)) * 3;
    if (op % 1000 == 0) k = op % 2000 ? ~u64{0} - static_cast<u64>(op % 7) : static_cast<u64>(op % 5);
    const int dice = static_cast<int>(rng.uniform(0, 99));
    const int insert_pct = phase == 0 ? 60 : phase == 1 ? 10 : 35;
    const int erase_pct = phase == 0 ? 10 : phase == 1 ? 60 : 35;
    if (dice < insert_pct) {
      void* v = value(k, op);
      ASSERT_EQ(tree.insert(k, v), model.emplace(k, v).second) << "op " << op << " insert " << k;
    } else if (dice < insert_pct + erase_pct) {
      ASSERT_EQ(tree.erase(k), model.erase(k) == 1) << "op " << op << " erase " << k;
    } else if (dice < insert_pct + erase_pct + 15) {
      auto it = model.find(k);
      ASSERT_EQ(tree.find(k), it == model.end() ? nullptr : it->second) << "op " << op << " find " << k;
    } else {
      auto it = model.lower_bound(k);
      const int limit = static_cast<int>(rng.uniform(1, 80));
      int n = 0;
      bool ok = true;
      tree.scan(k, [&](u64 key, void* v) {
        if (it == model.end() || key != it->first || v != it->second) ok = false;
        if (it != model.end()) ++it;
        return ++n < limit && ok;
      });
      ASSERT_TRUE(ok) << "op " << op << " scan from " << k;
      if (n < limit) { ASSERT_EQ(it, model.end()) << "op " << op << ": scan ended early"; }
    }
    ASSERT_EQ(tree.size(), model.size()) << "op " << op;
    if (op % 20000 == 19999) {
      auto it = model.begin();
      bool ok = true;
      tree.scan(0, [&](u64 key, void* v) {
        if (it == model.end() || key != it->first || v != it->second) ok = false;
        else ++it;
        return ok;
      });
      ASSERT_TRUE(ok) << "op " << op << ": full scan differs";
      ASSERT_EQ(it, model.end()) << "op " << op << ": full scan ended early";
    }
  }
  EXPECT_GT(tree.bytes(), 0u);
}

TEST(MemBTree, SequentialInsertsEraseAllAndReinsert) {
  for (bool descending : {false, true}) {
    SCOPED_TRACE(descending ? "descending" : "ascending");
    MemBTree tree;
    constexpr u64 kN = 100000;  // fanout 32: four levels and more
    for (u64 i = 0; i < kN; ++i) {
      const u64 k = descending ? kN - 1 - i : i;
      ASSERT_TRUE(tree.insert(k * 2, reinterpret_cast<void*>(k + 1)));
      ASSERT_FALSE(tree.insert(k * 2, nullptr)) << "duplicate accepted";
    }
    EXPECT_EQ(tree.size(), kN);
    for (u64 k = 0; k < 2 * kN; ++k) {
      void* v = tree.find(k);
      ASSERT_EQ(v, k % 2 ? nullptr : reinterpret_cast<void*>(k / 2 + 1)) << k;
    }
    u64 expected = 0;
    tree.scan(0, [&](u64 key, void*) {
      EXPECT_EQ(key, expected);
      expected += 2;
      return true;
    });
    EXPECT_EQ(expected, 2 * kN);
    // Scan from a missing key starts at the next present one.
    u64 first = 0;
    tree.scan(1001, [&](u64 key, void*) {
      first = key;
      return false;
    });
    EXPECT_EQ(first, 1002u);
    for (u64 k = 0; k < kN; ++k) ASSERT_TRUE(tree.erase(k * 2));
    EXPECT_EQ(tree.size(), 0u);
    EXPECT_EQ(tree.find(0), nullptr);
    bool any = false;
    tree.scan(0, [&](u64, void*) { return any = true, false; });
    EXPECT_FALSE(any) << "a scan found a key in an emptied tree";
    for (u64 k = 0; k < kN; k += 3) ASSERT_TRUE(tree.insert(k * 2, reinterpret_cast<void*>(k + 7)));
    for (u64 k = 0; k < kN; k += 3) ASSERT_EQ(tree.find(k * 2), reinterpret_cast<void*>(k + 7));
    EXPECT_EQ(tree.size(), (kN + 2) / 3);
  }
}

}  // namespace
}  // namespace dbrepro::tpcc
