// Issue 42: a durable database holds its directory, not its name, and
// `recover` checks what it is told to check before it writes. A directory
// renamed (or replaced, or reached through a repointed symlink) while held
// keeps every file of its run; the settings both commands take are checked
// once, from the table's ranges; an acks file is read whole, or refused
// naming its line, before the directory is opened; an acks file to append
// to may not be inside the database directory.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "common/number_text.hpp"
#include "driver/tpcc/acks_file.hpp"
#include "driver/tpcc/durable_run.hpp"
#include "driver/tpcc/fields.hpp"
#include "durable_test_files.hpp"
#include "recovery_test_db.hpp"

namespace dbrepro::tpcc {
namespace {

using namespace recovery_test;
using durable_test::durable_config;
using durable_test::invalid_argument_of;
using recovery::DurableFiles;
using recovery::Refused;
namespace fs = std::filesystem;

#define EXPECT_HAS(text, part) EXPECT_NE(std::string(text).find(part), std::string::npos) << (text)

std::set<std::string> names(const std::string& dir) {
  std::set<std::string> found;
  for (const auto& e : fs::directory_iterator(dir)) found.insert(e.path().filename());
  return found;
}

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

// ---------------------------------------------------------------------------
// 1. The directory, not its name.

TEST(DurableHeldDirectory, ARenamedDirectoryKeepsEveryFileOfItsRun) {
  TempDir base;
  const std::string dir = base.path + "/db";
  const std::string moved = base.path + "/db.old";
  fs::create_directory(dir);
  {
    DurableFiles files(dir);
    // Renamed and replaced before the engine writes its first file: the
    // log, the checkpoint's snapshot and its rename all stay in the
    // directory held.
    fs::rename(dir, moved);
    fs::create_directory(dir);
    DurableFiles other(dir);  // the new directory is another database's, free to lock
    crash_with_history(files);
    EXPECT_TRUE(names(dir).empty()) << "a file was written by the old name";
    EXPECT_EQ(names(moved), (std::set<std::string>{"snapshot", "log.1"}));
  }
  DurableFiles reopened(moved);
  E engine(options_for(reopened));
  Tables t(engine);
  reopened.open(engine);
  expect_recovered(engine, t);
  EXPECT_TRUE(names(dir).empty());
}

TEST(DurableHeldDirectory, ARepointedSymlinkLeavesTheRunInTheDirectoryItOpened) {
  TempDir base;
  const std::string first = base.path + "/first", second = base.path + "/second", link = base.path + "/db";
  fs::create_directory(first);
  fs::create_directory(second);
  fs::create_directory_symlink(first, link);
  {
    DurableFiles files(link);
    E engine(options_for(files));
    Tables t(engine);
    files.checkpoint(engine);
    fs::remove(link);
    fs::create_directory_symlink(second, link);
    files.checkpoint(engine);  // generation 2, in `first`
    EXPECT_EQ(files.generation(), 2u);
  }
  EXPECT_TRUE(names(second).empty()) << "a checkpoint followed the repointed link";
  EXPECT_EQ(names(first), (std::set<std::string>{"snapshot", "log.2"}));
}

// ---------------------------------------------------------------------------
// 2. and 5. One validation, the real limits.

TEST(DurableHeldDirectory, BothCommandsRefuseWhatTheTableRefusesBeforeTouchingTheDirectory) {
  TempDir dir;
  DurableRunConfig config = durable_config(dir.path);
  for (u32 warehouses : {0u, 70000u}) {
    config.run.warehouses = warehouses;
    EXPECT_HAS(invalid_argument_of([&] { durable_verify(config, true); }), "warehouses: must be in 1..65535");
    EXPECT_HAS(invalid_argument_of([&] { durable_run(config); }), "warehouses: must be in 1..65535");
  }
  config.run.warehouses = 1;
  for (u32 terminals : {0u, kMaxDurableTerminals + 1}) {
    config.run.terminals = terminals;
    EXPECT_HAS(invalid_argument_of([&] { durable_verify(config, true); }), "terminals: must be in 1..4095");
  }
  config.run.terminals = 1;
  for (double every : {-1.0, 1e308}) {  // issue 56: recover took them, and wrote
    config.checkpoint_every = every;
    EXPECT_HAS(invalid_argument_of([&] { durable_verify(config, true); }), "checkpoint_every: must be in 0..86400");
    EXPECT_HAS(invalid_argument_of([&] { durable_run(config); }), "checkpoint_every: must be in 0..86400");
  }
  config.checkpoint_every = 0;
  config.run.mix.fill(0);
  EXPECT_HAS(invalid_argument_of([&] { durable_verify(config, true); }), "mix: weights must sum");
  EXPECT_TRUE(names(dir.path).empty()) << "refused after writing";
}

TEST(DurableHeldDirectory, RangeMessagesNameTheRealLimits) {
  RunConfig c;
  const auto& warehouses = find_run_field("warehouses");
  EXPECT_HAS(invalid_argument_of([&] { warehouses.set(c, config::FieldInteger{0, false}); }),
             "warehouses: must be in 1..65535, got 0");
  EXPECT_HAS(invalid_argument_of([&] { warehouses.set(c, config::FieldInteger{4294967296ull, false}); }),
             "warehouses: must be in 1..65535, got 4294967296");
  EXPECT_HAS(invalid_argument_of([&] { find_run_field("terminals").set(c, config::FieldInteger{1025, false}); }),
             "terminals: must be in 1..1024, got 1025");
  EXPECT_HAS(invalid_argument_of([&] { check_durable_terminals(4294967296ull); }),
             "terminals: must be in 1..4095, got 4294967296");
  EXPECT_EQ(number_text(1.0000001), "1.0000001");
  c.pool_fraction = 1.0000001;
  EXPECT_HAS(invalid_argument_of([&] { validate(c); }), "pool_fraction: must be in (0, 1], got 1.0000001");
}

// ---------------------------------------------------------------------------
// 3. and 5. Nothing written before every argument is checked.

TEST(DurableHeldDirectory, RecoverCreatesADatabaseOnlyWhenAsked) {
  TempDir dir;
  try {
    durable_verify(durable_config(dir.path));
    FAIL() << "an empty directory was given a database";
  } catch (const Refused& e) {
    EXPECT_HAS(e.what(), "holds no database");
    EXPECT_HAS(e.what(), "--create");
  }
  EXPECT_TRUE(names(dir.path).empty());
}

TEST(DurableHeldDirectory, AnAcksFileThatCannotBeReadIsRefusedBeforeTheDirectoryIsOpened) {
  TempDir dir;
  {
    DurableFiles files(dir.path);
    crash_with_history(files);
  }
  const auto before = names(dir.path);
  DurableRunConfig config = durable_config(dir.path);
  config.acks_paths = {"/nonexistent/a"};
  EXPECT_HAS(invalid_argument_of([&] { durable_verify(config); }), "acks file '/nonexistent/a'");
  EXPECT_EQ(names(dir.path), before) << "recovered (and checkpointed) before refusing";
}

// ---------------------------------------------------------------------------
// 4. An acks file is read whole or refused.

// Run 0's header (a stamp below 2^40 is run 0's) and the largest run's.
const std::string kRun0 = "# run 0 of database 00000000000000aa\n";
const std::string kLastRun = "# run 16777215 of database 00000000000000aa\n";

TEST(DurableHeldDirectory, ReadAcksReadsEveryLine) {
  TempDir dir;
  const std::string path = dir.path + "/acks";
  write_file(path, kRun0 + "N 1\nP 7\n" + kLastRun + "N 18446744073709551615\n");
  const std::vector<Ack> acks = read_acks(path);
  ASSERT_EQ(acks.size(), 3u);
  EXPECT_EQ(acks[1].type, 'P');
  EXPECT_EQ(acks[2].stamp, 18446744073709551615ull);
  write_file(path, "");
  EXPECT_TRUE(read_acks(path).empty());
}

TEST(DurableHeldDirectory, ReadAcksRefusesWhatItCannotReadNamingFileAndLine) {
  TempDir dir;
  const std::string path = dir.path + "/acks";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {kRun0 + "N 1\ngarbage\nN 2\n", "line 3: expected 'N STAMP' or 'P STAMP'"},
      {kRun0 + "N 1\nX 5\n", "line 3"},          // an unknown type letter
      {kRun0 + "N 1\nn 5\n", "line 3"},
      {kRun0 + "N 1\nN 5 \n", "line 3"},         // trailing space
      {kRun0 + "N 1\nN -5\n", "line 3"},
      {kRun0 + "\n", "line 2"},                  // an empty line
      {kRun0 + "N 18446744073709551616\n", "line 2"},  // past 64 bits
      {kRun0 + "N 1\nP 2", "line 3: cut short"},
      {"N 1\n", "line 1: an acknowledgement before any run's header"},  // a file of a build before issue 56
      {kRun0 + "N 1099511627776\n", "line 2: stamp 1099511627776 is run 1's, under run 0's header"},
      {"# run 16777216 of database 00000000000000aa\n", "line 1"},  // a run id no stamp holds
      {"# run 1 of database 00000000000000AA\n", "line 1"},         // upper-case hex
      {"# run 01 of database 00000000000000aa\n", "line 1"},
      {kRun0 + std::string(100, 'N') + "\n", "line 2: expected"},  // longer than any line
  };
  for (const auto& [bytes, message] : cases) {
    write_file(path, bytes);
    const std::string what = invalid_argument_of([&] { read_acks(path); });
    EXPECT_HAS(what, "acks file '" + path + "': " + message);
    EXPECT_EQ(what.find('\n'), std::string::npos);
  }
  EXPECT_HAS(invalid_argument_of([&] { read_acks(dir.path); }), "is a directory");
  EXPECT_HAS(invalid_argument_of([&] { read_acks(dir.path + "/missing"); }), "cannot be read");
}

// ---------------------------------------------------------------------------
// 5. An acks file to append to is kept out of the database directory.

TEST(DurableHeldDirectory, AnAcksFileInsideTheDatabaseDirectoryIsRefusedUncreated) {
  TempDir base;
  const std::string dir = base.path + "/db";
  fs::create_directories(dir + "/sub");
  write_file(dir + "/snapshot", "its own snapshot");
  fs::create_symlink(dir + "/snapshot", base.path + "/to-snapshot");
  fs::create_directory_symlink(dir, base.path + "/to-db");
  DurableFiles files(dir);
  const AcksHeader run{1, 0xaa};
  for (const std::string& path : {dir + "/snapshot", dir + "/acks", dir + "/sub/acks", base.path + "/to-snapshot",
                                  base.path + "/to-db/acks", dir + "/../db/acks"}) {
    EXPECT_HAS(invalid_argument_of([&] { AcksWriter acks(path, files.dir_fd(), files.dir(), run); }),
               "inside the database directory")
        << path;
  }
  EXPECT_EQ(names(dir), (std::set<std::string>{"snapshot", "sub"}));
  EXPECT_TRUE(names(dir + "/sub").empty());
  std::ifstream in(dir + "/snapshot");
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), "its own snapshot");

  EXPECT_HAS(
      invalid_argument_of([&] { AcksWriter acks(base.path + "/none/acks", files.dir_fd(), files.dir(), run); }),
      "cannot be opened");
  EXPECT_HAS(invalid_argument_of([&] { AcksWriter acks(base.path, files.dir_fd(), files.dir(), run); }),
             "directory");
  {
    AcksWriter outside(base.path + "/acks", files.dir_fd(), files.dir(), run);
    outside.ack(TxnType::kPayment, (u64{1} << 40) + 42);
  }
  EXPECT_EQ(read_acks(base.path + "/acks").at(0).stamp, (u64{1} << 40) + 42);
}

}  // namespace
}  // namespace dbrepro::tpcc
