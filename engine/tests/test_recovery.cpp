// Crash recovery (recovery/): a database directory holds a checkpoint's
// snapshot and the log since; opening it after a "crash" (the engine dropped
// without a checkpoint: only what commits flushed is on disk) redoes the
// committed transactions, keeps rollbacks done before the crash, undoes the
// transactions the crash interrupted, ignores a torn log tail, survives a
// crash in the middle of a checkpoint, and can be reopened again. A
// multi-terminal TPC-C run recovered this way holds every acknowledged commit.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <mutex>
#include <vector>

#include "driver/terminals.hpp"
#include "recovery/durable_files.hpp"
#include "recovery/tpcc_stamps.hpp"
#include "stack/ladder.hpp"
#include "tpcc_test_db.hpp"

namespace dbrepro::tpcc {
namespace {

using recovery::DurableFiles;
using recovery::ReplayStats;
using E = Engine<Step1>;

struct TempDir {
  TempDir() {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/dbrepro-test-db-XXXXXX";
    path = ::mkdtemp(pattern.data());
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  std::string path;
};

EngineOptions options_for(const DurableFiles& files) {
  EngineOptions o;
  o.log_path = files.pending_log_path();
  return o;
}

// A few tables of every kind: keyed rows, heap-only rows, index-only keys.
struct Tables {
  explicit Tables(E& engine) : warehouse(engine), district(engine), history(engine), by_customer(engine) {}
  E::Table<Warehouse> warehouse;
  E::Table<District> district;
  E::Table<History> history;
  E::Table<OrderByCustomer> by_customer;
};

i64 ytd(E& engine, Tables& t, u32 d) {
  i64 v = -1;
  engine.begin();
  t.district.lookup1({1, d}, [&](const District& row) { v = row.d_ytd; });
  engine.commit();
  return v;
}
bool has_key(E& engine, Tables& t, u32 o) {
  bool found = false;
  engine.begin();
  t.by_customer.scan({1, 1, 1, o}, [&](const OrderByCustomer::Key& k) {
    found = k.o_id == o && k.o_c_id == 1;
    return false;
  });
  engine.commit();
  return found;
}
std::vector<u64> history_dates(E& engine) {
  std::vector<u64> dates;
  engine.catalog().lookup(History::kName).heap->for_each([&](RecordId, const std::byte* bytes) {
    History h;
    std::memcpy(&h, bytes, sizeof(h));
    dates.push_back(h.h_date);
  });
  return dates;
}
History history(u64 date) {
  History h{};
  h.h_date = date;
  return h;
}

// Builds the database, checkpoints, then: T1 commits, T2 aborts, T3 is
// interrupted (its records reach the disk with T4's commit), T4 commits.
void crash_with_history(DurableFiles& files) {
  E engine(options_for(files));
  Tables t(engine);
  Warehouse w{};
  w.w_id = 1;
  t.warehouse.load({1}, w);
  for (u32 d = 1; d <= 4; ++d) {
    District row{};
    row.d_id = d;
    row.d_w_id = 1;
    row.d_ytd = 10;
    t.district.load({1, d}, row);
  }
  t.by_customer.load({1, 1, 1, 100});
  files.checkpoint(engine);

  engine.begin();  // T1
  t.district.update1({1, 1}, [](District& d) { d.d_ytd += 5; });
  t.history.insert(history(1));
  t.by_customer.insert({1, 1, 1, 5000});
  engine.commit();

  engine.begin();  // T2
  t.district.update1({1, 2}, [](District& d) { d.d_ytd += 7; });
  t.history.insert(history(2));
  t.by_customer.insert({1, 1, 1, 5002});
  engine.abort();

  E::Session s3(engine);  // T3
  E::Table<District> district3(s3);
  E::Table<History> history3(s3);
  E::Table<OrderByCustomer> by_customer3(s3);
  s3.begin();
  district3.update1({1, 3}, [](District& d) { d.d_ytd += 9; });
  history3.insert(history(3));
  by_customer3.insert({1, 1, 1, 5003});
  EXPECT_TRUE(by_customer3.erase({1, 1, 1, 100}));

  engine.begin();  // T4: its commit flushes T3's records too
  t.district.update1({1, 4}, [](District& d) { d.d_ytd += 11; });
  engine.commit();
  // The crash: nothing more reaches the disk (s3's rollback in its
  // destructor stays in the log buffer, never flushed).
}

void expect_recovered(E& engine, Tables& t) {
  EXPECT_EQ(ytd(engine, t, 1), 15) << "T1 committed";
  EXPECT_EQ(ytd(engine, t, 2), 10) << "T2 was rolled back";
  EXPECT_EQ(ytd(engine, t, 3), 10) << "T3 was interrupted: undone";
  EXPECT_EQ(ytd(engine, t, 4), 21) << "T4 committed";
  EXPECT_EQ(history_dates(engine), std::vector<u64>{1});
  EXPECT_TRUE(has_key(engine, t, 5000));
  EXPECT_FALSE(has_key(engine, t, 5002));
  EXPECT_FALSE(has_key(engine, t, 5003));
  EXPECT_TRUE(has_key(engine, t, 100)) << "T3's erase was undone";
  EXPECT_EQ(t.by_customer.size(), 2u);
  EXPECT_EQ(t.history.size(), 1u);
}

TEST(Recovery, RedoesCommitsKeepsRollbacksUndoesTheInterrupted) {
  TempDir dir;
  DurableFiles files(dir.path);
  EXPECT_FALSE(files.exists());
  crash_with_history(files);
  ASSERT_TRUE(files.exists());

  DurableFiles reopened(dir.path);
  E engine(options_for(reopened));
  Tables t(engine);
  const ReplayStats stats = reopened.open(engine);
  EXPECT_EQ(stats.committed, 2u);
  EXPECT_EQ(stats.aborted, 1u);
  EXPECT_EQ(stats.undone, 1u);
  EXPECT_EQ(stats.undo_records, 4u) << "T3's update, create, insert, erase";
  EXPECT_EQ(stats.torn_bytes, 0u);
  EXPECT_EQ(reopened.generation(), 2u) << "opening checkpoints";
  expect_recovered(engine, t);
}

// Record ids change at recovery; the log written afterwards must match the
// snapshot the recovery wrote.
TEST(Recovery, ReopensTwiceAfterWorkOnTheRecoveredDatabase) {
  TempDir dir;
  {
    DurableFiles files(dir.path);
    crash_with_history(files);
  }
  {
    DurableFiles files(dir.path);
    E engine(options_for(files));
    Tables t(engine);
    files.open(engine);
    engine.begin();
    t.district.update1({1, 1}, [](District& d) { d.d_ytd += 100; });
    t.history.insert(history(4));
    engine.commit();
  }
  DurableFiles files(dir.path);
  E engine(options_for(files));
  Tables t(engine);
  const ReplayStats stats = files.open(engine);
  EXPECT_EQ(stats.committed, 1u);
  EXPECT_EQ(ytd(engine, t, 1), 115);
  EXPECT_EQ(history_dates(engine), (std::vector<u64>{1, 4}));
  EXPECT_EQ(files.generation(), 3u);
}

TEST(Recovery, IgnoresATornLogTail) {
  TempDir dir;
  {
    DurableFiles files(dir.path);
    crash_with_history(files);
  }
  {
    std::ofstream log(dir.path + "/log.1", std::ios::binary | std::ios::app);
    const char garbage[30] = {1, 2, 3};
    log.write(garbage, sizeof(garbage));  // a header cut off by the crash
  }
  DurableFiles files(dir.path);
  E engine(options_for(files));
  Tables t(engine);
  EXPECT_EQ(files.open(engine).torn_bytes, 30u);
  expect_recovered(engine, t);
}

TEST(Recovery, CrashDuringACheckpointKeepsThePreviousOne) {
  TempDir dir;
  {
    DurableFiles files(dir.path);
    crash_with_history(files);
  }
  // What a checkpoint leaves when it dies before its rename: a partial
  // snapshot.tmp and the next generation's empty log.
  std::ofstream(dir.path + "/snapshot.tmp") << "partial";
  std::ofstream(dir.path + "/log.2").flush();
  DurableFiles files(dir.path);
  E engine(options_for(files));
  Tables t(engine);
  files.open(engine);
  expect_recovered(engine, t);
}

TEST(Recovery, NamesWhatIsWrongWithTheDirectory) {
  EXPECT_THROW(DurableFiles("/nonexistent/dbrepro"), std::invalid_argument);
  TempDir dir;
  std::ofstream(dir.path + "/snapshot") << "not a snapshot";
  DurableFiles files(dir.path);
  E engine(options_for(files));
  Tables t(engine);
  try {
    files.open(engine);
    FAIL() << "opened a garbage snapshot";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("not a dbrepro snapshot"), std::string::npos) << e.what();
  }
}

// Four terminals on one warehouse, a checkpoint in the middle, then a
// crash: every acknowledged New Order and Payment is in the recovered
// database, and it is consistent.
TEST(Recovery, MultiTerminalTpccKeepsEveryAcknowledgedCommit) {
  TempDir dir;
  std::vector<std::pair<TxnType, u64>> acked;
  std::mutex acked_mutex;
  Random load_rng(11);
  const NURandConstants load_constants = NURandConstants::for_load(load_rng);
  {
    DurableFiles files(dir.path);
    E engine(options_for(files));
    Database<E> db(engine);
    load(db, 1, load_rng, load_constants);
    files.checkpoint(engine);
    RunConfig config;
    config.terminals = 4;
    config.transactions = 600;
    config.mix = {0.45, 0.43, 0.04, 0.04, 0.04};
    Random run_rng(12);
    const NURandConstants constants = NURandConstants::for_run(load_constants, run_rng);
    auto on_commit = [&](u32, TxnType type, u64 stamp) {
      std::lock_guard<std::mutex> guard(acked_mutex);
      acked.emplace_back(type, stamp);
    };
    TerminalControl first;
    run_terminals(engine, config, constants, 1, first, on_commit);
    files.checkpoint(engine);
    TerminalControl second;
    run_terminals(engine, config, constants, 2, second, on_commit);
  }
  DurableFiles files(dir.path);
  E engine(options_for(files));
  Database<E> db(engine);
  const ReplayStats stats = files.open(engine);
  db.warehouses = 1;
  EXPECT_GT(stats.committed, 0u);
  const CommitStamps stamps = commit_stamps(db);
  u64 checked = 0;
  for (const auto& [type, stamp] : acked) {
    if (type == TxnType::kNewOrder) {
      EXPECT_TRUE(stamps.new_orders.contains(stamp)) << "lost New Order " << stamp;
      ++checked;
    } else if (type == TxnType::kPayment) {
      EXPECT_TRUE(stamps.payments.contains(stamp)) << "lost Payment " << stamp;
      ++checked;
    }
  }
  EXPECT_GT(checked, 900u);
  test_db::expect_consistent(db);
}

}  // namespace
}  // namespace dbrepro::tpcc
