// Tests of the run driver (dbrepro::tpcc::run): a whole E1 run (load, 40,000
// transactions of the 50/50 mix, consistency check) on every stack and both
// input variants, its determinism, configuration validation, the progress
// callback, and the JSON the native driver prints.
#include <gtest/gtest.h>

#include <cctype>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "driver/result_json.hpp"
#include "driver/tpcc/run.hpp"
#include "driver/tpcc/run_config.hpp"

namespace dbrepro::tpcc {
namespace {

constexpr int kNewOrder = static_cast<int>(TxnType::kNewOrder);
constexpr int kPayment = static_cast<int>(TxnType::kPayment);

RunConfig paper_config(const std::string& key_compare) {
  RunConfig c;
  c.warehouses = 1;
  c.transactions = 40000;
  c.variant = Variant::kPaper;
  c.seed = 1;
  c.key_compare = key_compare;
  return c;
}

// Everything that a run's logical work determines (not its timings).
struct Counts {
  std::vector<u64> commits, aborts;
  u64 transactions;
  bool operator==(const Counts&) const = default;
};
Counts counts(const RunResult& r) {
  Counts c{{}, {}, r.transactions};
  for (const TxnStats& s : r.per_type) {
    c.commits.push_back(s.commits);
    c.aborts.push_back(s.aborts);
  }
  return c;
}

void expect_complete_and_consistent(const RunResult& r) {
  u64 total = 0;
  for (const TxnStats& s : r.per_type) total += s.commits + s.aborts;
  EXPECT_EQ(total, r.transactions) << "commits + aborts = transactions";
  EXPECT_EQ(r.transactions, r.config.transactions);
  EXPECT_FALSE(r.interrupted);
  ASSERT_EQ(r.consistency.size(), kCheckedConditions.size());
  for (size_t i = 0; i < kCheckedConditions.size(); ++i) {
    EXPECT_EQ(r.consistency[i].condition, kCheckedConditions[i]);
    EXPECT_FALSE(r.consistency[i].description.empty());
    EXPECT_TRUE(r.consistency[i].passed) << "condition " << r.consistency[i].condition << ": "
                                         << r.consistency[i].detail;
  }
  EXPECT_TRUE(r.consistent());
  // Only New Order and Payment are run; the other types never appear.
  for (int t = 2; t < kTxnTypeCount; ++t) {
    EXPECT_EQ(r.per_type[t].commits + r.per_type[t].aborts, 0u) << kTxnTypeNames[t];
  }
  // The 50/50 mix, Payment never aborts, ~1% of New Orders do.
  const double no = static_cast<double>(r.per_type[kNewOrder].commits + r.per_type[kNewOrder].aborts);
  EXPECT_NEAR(no / static_cast<double>(r.transactions), 0.5, 0.02);
  EXPECT_EQ(r.per_type[kPayment].aborts, 0u);
  EXPECT_NEAR(static_cast<double>(r.per_type[kNewOrder].aborts) / no, 0.01, 0.004);
  EXPECT_GT(r.elapsed_seconds, 0.0);
  EXPECT_GT(r.cpu_seconds, 0.0);
  EXPECT_GT(r.load_seconds, 0.0);
  EXPECT_GT(r.throughput(), 0.0);
  EXPECT_GT(r.database_pages, 0u);
  // The bare stack has no page access (as the ladder's steps 9-10): B-tree
  // nodes on pages, records in malloc'd blocks, counted beside the pages.
  EXPECT_GT(r.database_bytes, r.database_pages * r.config.page_size);
}

// Runs shared by several tests: each configuration is run once per process.
const RunResult& cached_run(const RunConfig& config) {
  static std::map<std::string, RunResult> cache;
  RunResult blank;
  blank.config = config;
  const std::string key = to_json(blank);  // the config, serialised
  auto it = cache.find(key);
  if (it == cache.end()) it = cache.emplace(key, run(config)).first;
  return it->second;
}

// ---------------------------------------------------------------------------
// Whole runs

// ctest runs each test in a process of its own: the expensive 40,000-transaction
// runs are grouped so that none is repeated across tests.
TEST(TpccRun, PaperMixBothKeyCompares) {
  const RunResult& integer = cached_run(paper_config("integer"));
  expect_complete_and_consistent(integer);
  EXPECT_EQ(integer.config.key_compare, "integer");
  const RunResult& generic = cached_run(paper_config("generic"));
  expect_complete_and_consistent(generic);
  EXPECT_EQ(generic.config.key_compare, "generic");
  // Same seed, same logical work: the key compare changes only the cost.
  EXPECT_EQ(counts(integer), counts(generic));
  // Same seed, same counts when run again.
  const RunResult again = run(paper_config("integer"));
  EXPECT_EQ(counts(again), counts(integer));
}

TEST(TpccRun, PageSizeDoesNotChangeTheLogicalWork) {
  RunConfig small = paper_config("integer");
  small.transactions = 10000;
  RunConfig big = small;
  big.page_size = 32768;
  const RunResult a = run(small);
  const RunResult b = run(big);
  EXPECT_TRUE(a.consistent());
  EXPECT_TRUE(b.consistent());
  EXPECT_EQ(counts(a), counts(b));
  EXPECT_LT(b.database_pages, a.database_pages);
}

TEST(TpccRun, SmallestAndLargestPageSizes) {
  RunConfig c = paper_config("integer");
  c.transactions = 4000;
  const RunResult reference = run(c);
  for (u32 page_size : {1024u, 65536u}) {
    SCOPED_TRACE(page_size);
    c.page_size = page_size;
    const RunResult r = run(c);
    EXPECT_TRUE(r.consistent());
    EXPECT_EQ(counts(r), counts(reference));
    EXPECT_GT(r.database_bytes, r.database_pages * page_size) << "records outside the pages count too";
  }
}

TEST(TpccRun, DifferentSeedDifferentStream) {
  RunConfig c = paper_config("integer");
  c.seed = 2;
  c.transactions = 10000;
  const RunResult a = run(c);
  c.seed = 3;
  const RunResult b = run(c);
  EXPECT_TRUE(a.consistent());
  EXPECT_TRUE(b.consistent());
  // Commit counts are random; over two different seeds they should not all agree.
  EXPECT_NE(counts(a), counts(b));
}

TEST(TpccRun, SpecVariantTwoWarehouses) {
  for (const char* kc : {"integer", "generic"}) {
    SCOPED_TRACE(kc);
    RunConfig c = paper_config(kc);
    c.variant = Variant::kSpec;
    c.warehouses = 2;
    const RunResult& r = cached_run(c);
    expect_complete_and_consistent(r);
    EXPECT_EQ(r.config.warehouses, 2u);
  }
  RunConfig c = paper_config("integer");
  c.variant = Variant::kSpec;
  c.warehouses = 2;
  RunConfig g = c;
  g.key_compare = "generic";
  EXPECT_EQ(counts(cached_run(c)), counts(cached_run(g)));
}

TEST(TpccRun, NewOrderOnlyAndPaymentOnlyMixes) {
  RunConfig c = paper_config("integer");
  c.transactions = 5000;
  c.mix = {1, 0, 0, 0, 0};
  RunResult r = run(c);
  EXPECT_EQ(r.per_type[kNewOrder].commits + r.per_type[kNewOrder].aborts, 5000u);
  EXPECT_EQ(r.per_type[kPayment].commits, 0u);
  EXPECT_TRUE(r.consistent());
  c.mix = {0, 3, 0, 0, 0};
  r = run(c);
  EXPECT_EQ(r.per_type[kPayment].commits, 5000u);
  EXPECT_EQ(r.per_type[kNewOrder].commits + r.per_type[kNewOrder].aborts, 0u);
  EXPECT_TRUE(r.consistent());
}

TEST(TpccRun, ConsistencyCheckCanBeSkipped) {
  RunConfig c = paper_config("integer");
  c.transactions = 2000;
  c.check_consistency = false;
  const RunResult r = run(c);
  EXPECT_TRUE(r.consistency.empty());
  EXPECT_EQ(r.transactions, 2000u);
}

TEST(TpccRun, TimedRun) {
  RunConfig c = paper_config("integer");
  c.transactions = 0;
  c.seconds = 0.2;
  c.check_consistency = true;
  const RunResult r = run(c);
  EXPECT_GT(r.transactions, 0u);
  EXPECT_GE(r.elapsed_seconds, 0.2);
  EXPECT_LT(r.elapsed_seconds, 5.0) << "the limit is checked after every transaction";
  EXPECT_FALSE(r.interrupted);
  EXPECT_TRUE(r.consistent());
}

// ---------------------------------------------------------------------------
// Progress callback

TEST(TpccRun, ProgressCalledEveryProgressEvery) {
  RunConfig c = paper_config("integer");
  c.transactions = 5000;
  c.progress_every = 1000;
  std::vector<std::pair<u64, u64>> calls;
  const RunResult r = run(c, [&](u64 done, u64 total) {
    calls.push_back({done, total});
    return true;
  });
  const std::vector<std::pair<u64, u64>> expected = {{1000, 5000}, {2000, 5000}, {3000, 5000}, {4000, 5000},
                                                     {5000, 5000}};
  EXPECT_EQ(calls, expected);
  EXPECT_FALSE(r.interrupted);
  EXPECT_EQ(r.transactions, 5000u);

  calls.clear();
  c.progress_every = 700;
  run(c, [&](u64 done, u64 total) {
    calls.push_back({done, total});
    return true;
  });
  ASSERT_EQ(calls.size(), 7u);  // 700, 1400, ..., 4900
  for (size_t i = 0; i < calls.size(); ++i) EXPECT_EQ(calls[i].first, 700 * (i + 1));
}

TEST(TpccRun, ProgressReturningFalseInterrupts) {
  RunConfig c = paper_config("integer");
  c.transactions = 10000;
  c.progress_every = 500;
  int calls = 0;
  const RunResult r = run(c, [&](u64 done, u64) {
    ++calls;
    return done < 1500;
  });
  EXPECT_TRUE(r.interrupted);
  EXPECT_EQ(calls, 3);
  EXPECT_EQ(r.transactions, 1500u);
  u64 total = 0;
  for (const TxnStats& s : r.per_type) total += s.commits + s.aborts;
  EXPECT_EQ(total, 1500u);
  // An interrupted run still leaves a consistent database behind.
  EXPECT_TRUE(r.consistent());
  EXPECT_NE(to_json(r).find("\"interrupted\":true"), std::string::npos);
}

// ---------------------------------------------------------------------------
// Validation

void expect_rejected(const RunConfig& c, const std::string& parameter) {
  try {
    validate(c);
    ADD_FAILURE() << "validate() accepted a bad " << parameter;
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(parameter), std::string::npos)
        << "message does not name '" << parameter << "': " << e.what();
  }
  // run() validates before loading anything.
  EXPECT_THROW(run(c), std::invalid_argument);
}

TEST(TpccRunConfig, DefaultsAreValid) {
  EXPECT_NO_THROW(validate(RunConfig{}));
  const RunConfig c;
  EXPECT_EQ(c.warehouses, 1u);
  EXPECT_EQ(c.transactions, 40000u);
  EXPECT_EQ(c.mix[kNewOrder], 0.5);
  EXPECT_EQ(c.mix[kPayment], 0.5);
  EXPECT_EQ(c.variant, Variant::kPaper);
  EXPECT_EQ(c.stack, "bare");
  EXPECT_EQ(c.page_size, 0u) << "0: the stack's default";
  EXPECT_EQ(c.key_compare, "auto");
  EXPECT_EQ(c.meter, "none");
  EXPECT_EQ(c.log_dir, "");
  EXPECT_TRUE(c.check_consistency);
  // Resolved for the bare stack: 8 KB pages, integer keys; nothing else changes.
  const RunConfig r = resolve(c);
  EXPECT_EQ(r.page_size, 8192u);
  EXPECT_EQ(r.key_compare, "integer");
  EXPECT_EQ(r.stack, "bare");
  EXPECT_EQ(r.meter, "none");
  EXPECT_EQ(r.transactions, c.transactions);
  // Explicit choices survive resolution.
  RunConfig explicit_choice = c;
  explicit_choice.page_size = 4096;
  explicit_choice.key_compare = "generic";
  EXPECT_EQ(resolve(explicit_choice).page_size, 4096u);
  EXPECT_EQ(resolve(explicit_choice).key_compare, "generic");
  EXPECT_EQ(resolve(resolve(c)).page_size, 8192u) << "resolve is idempotent";
}

TEST(TpccRunConfig, RunReportsTheResolvedConfiguration) {
  RunConfig c = paper_config("auto");
  c.transactions = 1000;
  const RunResult r = run(c);
  EXPECT_EQ(r.config.page_size, 8192u);
  EXPECT_EQ(r.config.key_compare, "integer");
  EXPECT_EQ(r.step, -1) << "the bare stack is not a ladder step";
  EXPECT_EQ(r.stack_label, "");
  EXPECT_GT(r.database_bytes, r.database_pages * 8192u) << "records outside the pages (malloc'd) count too";
  EXPECT_EQ(r.log_bytes_written, 0u);
  EXPECT_EQ(r.log_syncs, 0u);
  EXPECT_EQ(r.counters.meter, "none");
  for (int p = 0; p < kPhaseCount; ++p) EXPECT_EQ(r.phases[p].calls, 0u) << kPhaseNames[p] << ": no meter, no phases";
  EXPECT_TRUE(r.consistent());
}

TEST(TpccRunConfig, ValidateRejectsBadValues) {
  RunConfig c;
  c.warehouses = 0;
  expect_rejected(c, "warehouses");
  c = RunConfig{};
  c.warehouses = 65536;
  expect_rejected(c, "warehouses");

  for (u32 bad : {3000u, 512u, 131072u, 1u, 8193u}) {
    SCOPED_TRACE(bad);
    c = RunConfig{};
    c.page_size = bad;
    expect_rejected(c, "page_size");
  }
  for (u32 good : {0u, 1024u, 4096u, 32768u, 65536u}) {
    c = RunConfig{};
    c.page_size = good;
    EXPECT_NO_THROW(validate(c)) << good;
  }

  c = RunConfig{};
  c.key_compare = "x";
  expect_rejected(c, "key_compare");
  c.key_compare = "";
  expect_rejected(c, "key_compare");
  c.key_compare = "Integer";
  expect_rejected(c, "key_compare");
  for (const char* good : {"auto", "generic", "integer"}) {
    c.key_compare = good;
    EXPECT_NO_THROW(validate(c)) << good;
  }

  c = RunConfig{};
  for (const char* bad : {"", "foo", "Bare", "step", "step-1", "step12", "step01", "step 1", "optimal2"}) {
    c.stack = bad;
    expect_rejected(c, "stack");
  }
  c = RunConfig{};
  c.meter = "papi";
  expect_rejected(c, "meter");
  c.meter = "";
  expect_rejected(c, "meter");

  c = RunConfig{};
  c.mix = {0, 0, 0, 0, 0};
  expect_rejected(c, "mix");
  c.mix = {0.5, -0.1, 0, 0, 0};
  expect_rejected(c, "mix");
  c.mix = {std::numeric_limits<double>::quiet_NaN(), 0.5, 0, 0, 0};
  expect_rejected(c, "mix");
  c.mix = {std::numeric_limits<double>::infinity(), 0.5, 0, 0, 0};
  expect_rejected(c, "mix");

  // A bad weight of any type is named in the message.
  for (TxnType t : {TxnType::kOrderStatus, TxnType::kDelivery, TxnType::kStockLevel}) {
    c = RunConfig{};
    c.mix[static_cast<int>(t)] = -0.04;
    expect_rejected(c, "mix");
    expect_rejected(c, kTxnTypeNames[static_cast<int>(t)]);
  }

  c = RunConfig{};
  c.seconds = -1;
  expect_rejected(c, "seconds");
  c.seconds = std::numeric_limits<double>::infinity();
  expect_rejected(c, "seconds");
  c.seconds = std::numeric_limits<double>::quiet_NaN();
  expect_rejected(c, "seconds");

  c = RunConfig{};
  c.transactions = 0;
  c.seconds = 0;
  expect_rejected(c, "transactions");

  c = RunConfig{};
  c.progress_every = 0;
  expect_rejected(c, "progress_every");
}

TEST(TpccRunConfig, ParseNames) {
  EXPECT_EQ(parse_variant("paper"), Variant::kPaper);
  EXPECT_EQ(parse_variant("spec"), Variant::kSpec);
  EXPECT_STREQ(variant_name(Variant::kPaper), "paper");
  EXPECT_STREQ(variant_name(Variant::kSpec), "spec");
  try {
    parse_variant("tpcc");
    ADD_FAILURE() << "parse_variant accepted 'tpcc'";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("variant"), std::string::npos) << e.what();
  }
  for (int i = 0; i < kTxnTypeCount; ++i) EXPECT_EQ(parse_txn_type(kTxnTypeNames[i]), static_cast<TxnType>(i));
  EXPECT_THROW(parse_txn_type("neworder"), std::invalid_argument);
}

// ---------------------------------------------------------------------------
// JSON

// A small recursive-descent JSON recognizer (RFC 8259 grammar, no semantics).
class JsonChecker {
 public:
  explicit JsonChecker(const std::string& s) : s_(s) {}
  bool valid() {
    ws();
    if (!value()) return false;
    ws();
    return i_ == s_.size();
  }

 private:
  bool value() {
    if (i_ >= s_.size()) return false;
    switch (s_[i_]) {
      case '{': return object();
      case '[': return array();
      case '"': return string();
      case 't': return literal("true");
      case 'f': return literal("false");
      case 'n': return literal("null");
      default: return number();
    }
  }
  bool object() {
    ++i_;
    ws();
    if (peek('}')) return ++i_, true;
    for (;;) {
      ws();
      if (!string()) return false;
      ws();
      if (!peek(':')) return false;
      ++i_;
      ws();
      if (!value()) return false;
      ws();
      if (peek('}')) return ++i_, true;
      if (!peek(',')) return false;
      ++i_;
    }
  }
  bool array() {
    ++i_;
    ws();
    if (peek(']')) return ++i_, true;
    for (;;) {
      ws();
      if (!value()) return false;
      ws();
      if (peek(']')) return ++i_, true;
      if (!peek(',')) return false;
      ++i_;
    }
  }
  bool string() {
    if (!peek('"')) return false;
    ++i_;
    while (i_ < s_.size()) {
      const char c = s_[i_++];
      if (c == '"') return true;
      if (static_cast<unsigned char>(c) < 0x20) return false;
      if (c == '\\') {
        if (i_ >= s_.size()) return false;
        const char e = s_[i_++];
        if (e == 'u') {
          for (int k = 0; k < 4; ++k)
            if (i_ >= s_.size() || !std::isxdigit(static_cast<unsigned char>(s_[i_++]))) return false;
        } else if (std::string_view("\"\\/bfnrt").find(e) == std::string_view::npos) {
          return false;
        }
      }
    }
    return false;
  }
  bool number() {
    const size_t start = i_;
    if (peek('-')) ++i_;
    if (peek('0')) {
      ++i_;
    } else {
      if (!digits()) return false;
    }
    if (peek('.')) {
      ++i_;
      if (!digits()) return false;
    }
    if (peek('e') || peek('E')) {
      ++i_;
      if (peek('+') || peek('-')) ++i_;
      if (!digits()) return false;
    }
    return i_ > start;
  }
  bool digits() {
    const size_t start = i_;
    while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) ++i_;
    return i_ > start;
  }
  bool literal(std::string_view word) {
    if (s_.compare(i_, word.size(), word) != 0) return false;
    i_ += word.size();
    return true;
  }
  bool peek(char c) const { return i_ < s_.size() && s_[i_] == c; }
  void ws() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\t' || s_[i_] == '\r')) ++i_;
  }

  const std::string& s_;
  size_t i_ = 0;
};

TEST(TpccRunJson, CheckerSanity) {
  EXPECT_TRUE(JsonChecker(R"({"a":[1,-2.5e3,true,null,{"b":"x\"y"}],"c":{}})").valid());
  EXPECT_FALSE(JsonChecker(R"({"a":1,})").valid());
  EXPECT_FALSE(JsonChecker(R"({"a":1}{)").valid());
  EXPECT_FALSE(JsonChecker(R"({"a" 1})").valid());
  EXPECT_FALSE(JsonChecker(R"([1 2])").valid());
}

TEST(TpccRunJson, ResultHasTheExpectedKeys) {
  RunConfig c = paper_config("integer");
  c.transactions = 4000;
  const RunResult r = run(c);
  const std::string json = to_json(r);
  EXPECT_TRUE(JsonChecker(json).valid()) << json;
  for (const char* key :
       {"\"config\":{", "\"warehouses\":1", "\"transactions\":4000", "\"seconds\":", "\"mix\":{",
        "\"new_order\":", "\"payment\":", "\"order_status\":", "\"delivery\":", "\"stock_level\":",
        "\"variant\":\"paper\"", "\"seed\":1", "\"page_size\":8192", "\"key_compare\":\"integer\"",
        "\"progress_every\":1000", "\"check_consistency\":true", "\"elapsed_seconds\":", "\"cpu_seconds\":",
        "\"load_seconds\":", "\"throughput_tps\":", "\"database_pages\":", "\"database_bytes\":",
        "\"interrupted\":false", "\"per_type\":{", "\"commits\":", "\"aborts\":", "\"consistency\":[",
        "\"condition\":1", "\"condition\":4", "\"description\":", "\"passed\":true", "\"detail\":\"\"",
        "\"consistent\":true", "\"stack\":\"bare\"", "\"meter\":\"none\"", "\"log_dir\":\"\"", "\"step\":-1",
        "\"stack_label\":\"\"", "\"components\":{", "\"key_compare\":\"integer\"", "\"page_access\":",
        "\"log_bytes_written\":0", "\"log_syncs\":0", "\"counters\":{", "\"perf_error\":",
        "\"read_cost_instructions\":0", "\"read_cost_cycles\":0", "\"phases\":{", "\"begin\":{", "\"lookup\":{",
        "\"pin_unpin\":{", "\"update\":{", "\"create\":{", "\"insert\":{", "\"commit\":{", "\"other\":{",
        "\"instructions\":", "\"cycles\":", "\"calls\":0"}) {
    EXPECT_NE(json.find(key), std::string::npos) << "missing " << key << " in " << json;
  }
  EXPECT_EQ(json.find("\"passed\":false"), std::string::npos);
  // The per-type counts are the result's.
  const std::string new_order_stats = "\"new_order\":{\"commits\":" + std::to_string(r.per_type[kNewOrder].commits) +
                                      ",\"aborts\":" + std::to_string(r.per_type[kNewOrder].aborts);
  EXPECT_NE(json.find(new_order_stats), std::string::npos) << json;
  EXPECT_NE(json.find("\"payment\":{\"commits\":" + std::to_string(r.per_type[kPayment].commits)), std::string::npos);
}

TEST(TpccRunJson, EscapesStringsAndWritesNonFiniteAsNull) {
  RunResult r;
  r.config.key_compare = "we\"ird\\name\n\x01";
  r.elapsed_seconds = std::numeric_limits<double>::infinity();
  r.consistency.push_back({1, "tab\there", false, "quote \" back \\ slash"});
  r.consistency.push_back({2, "", true, ""});
  const std::string json = to_json(r);
  EXPECT_TRUE(JsonChecker(json).valid()) << json;
  EXPECT_NE(json.find(R"("key_compare":"we\"ird\\name\n\u0001")"), std::string::npos) << json;
  EXPECT_NE(json.find("\"elapsed_seconds\":null"), std::string::npos) << json;
  EXPECT_NE(json.find("\"consistent\":false"), std::string::npos) << json;
  EXPECT_NE(json.find(R"("detail":"quote \" back \\ slash")"), std::string::npos) << json;
  EXPECT_NE(json.find("\"throughput_tps\":0"), std::string::npos) << json;  // 0 transactions / inf
  EXPECT_NE(json.find("\"seconds\":0.0,"), std::string::npos) << "doubles stay recognisable as doubles: " << json;
}

TEST(TpccRunJson, ConsistentIsNullWhenNotChecked) {
  RunConfig c = paper_config("integer");
  c.transactions = 1000;
  c.check_consistency = false;
  const RunResult r = run(c);
  const std::string json = to_json(r);
  EXPECT_TRUE(JsonChecker(json).valid()) << json;
  EXPECT_NE(json.find("\"consistent\":null"), std::string::npos) << "not checked is not consistent: " << json;
  EXPECT_NE(json.find("\"consistency\":[]"), std::string::npos) << json;
  EXPECT_NE(json.find("\"check_consistency\":false"), std::string::npos) << json;
  // A checked run that failed says false.
  RunResult failed;
  failed.consistency.push_back({3, "x", false, "y"});
  EXPECT_NE(to_json(failed).find("\"consistent\":false"), std::string::npos);
}

TEST(TpccRunJson, ComponentsOfALadderStep) {
  RunResult r;
  r.config.stack = "step5";
  r.step = 5;
  r.stack_label = "locking";
  r.components = {{"locking", "no locking"}, {"latching", "latching"}};
  const std::string json = to_json(r);
  EXPECT_TRUE(JsonChecker(json).valid()) << json;
  EXPECT_NE(json.find(R"("step":5,"stack_label":"locking","components":{"locking":"no locking","latching":"latching"})"),
            std::string::npos)
      << json;
}

TEST(TpccRunJson, EmptyResult) {
  const std::string json = to_json(RunResult{});
  EXPECT_TRUE(JsonChecker(json).valid()) << json;
  EXPECT_NE(json.find("\"consistency\":[]"), std::string::npos) << json;
  EXPECT_NE(json.find("\"consistent\":true"), std::string::npos) << json;
}

}  // namespace
}  // namespace dbrepro::tpcc
