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

#include "driver/tpcc/terminals.hpp"
#include "durable_test_files.hpp"
#include "recovery/durable_files.hpp"
#include "recovery_test_db.hpp"
#include "recovery/tpcc_stamps.hpp"
#include "stack/ladder.hpp"
#include "tpcc_test_db.hpp"

namespace dbrepro::tpcc {
namespace {

using namespace recovery_test;
using recovery::DurableFiles;
using recovery::ReplayStats;

TEST(Recovery, RedoesCommitsKeepsRollbacksUndoesTheInterrupted) {
  TempDir dir;
  {
    DurableFiles files(dir.path);
    EXPECT_FALSE(files.exists());
    crash_with_history(files);
    ASSERT_TRUE(files.exists());
  }

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
  durable_test::write_bytes(dir.path + "/snapshot.tmp",
                            durable_test::partial_snapshot(durable_test::database_id_of(dir.path), 100));
  std::ofstream(dir.path + "/log.2").flush();  // created, its header not written yet
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
