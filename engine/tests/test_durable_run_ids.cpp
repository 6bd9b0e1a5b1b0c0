// Issue 56, items 1 and 5: every durable run takes an id no earlier run on
// its database took (one past the last, which the snapshot records), and
// names it, with the database, in its acks file's header; recover checks
// each file against its own run, so a copy saved before a run reports that
// run's acknowledgements missing. The acks file is checked, and its header
// written, before the database directory is: a FIFO, a device, a file that
// cannot be written or that holds anything else is refused in one line.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "driver/tpcc/acks_file.hpp"
#include "driver/tpcc/durable_run.hpp"
#include "driver/tpcc/terminals.hpp"
#include "durable_test_files.hpp"
#include "recovery_test_db.hpp"

namespace dbrepro::tpcc {
namespace {

using durable_test::durable_config;
using durable_test::invalid_argument_of;
using durable_test::tree;
using recovery_test::TempDir;
namespace fs = std::filesystem;

#define EXPECT_HAS(text, part) EXPECT_NE(std::string(text).find(part), std::string::npos) << (text)

std::string first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

TEST(DurableRunIds, RunOfStampReadsTheRunIdWhereTheTerminalsPutIt) {
  for (u64 run : {u64{0}, u64{1}, u64{2}, kMaxRunId})
    for (u32 terminal : {0u, 1u, kMaxDurableTerminals - 1})
      EXPECT_EQ(run_of_stamp(terminal_clock_base(run, terminal) + 12345), run) << run << " " << terminal;
}

TEST(DurableRunIds, EachRunTakesOnePastTheLastRunOfItsDatabase) {
  TempDir dir;
  DurableRunConfig config = durable_config(dir.path);
  EXPECT_HAS(durable_run(config), "\"run_id\":1,");
  EXPECT_HAS(durable_run(config), "\"run_id\":2,");  // before issue 56: 1 again, and the same stamps
  config.run_id = 7;
  EXPECT_HAS(durable_run(config), "\"run_id\":7,");
  config.run_id.reset();
  EXPECT_HAS(durable_run(config), "\"run_id\":8,");
  EXPECT_HAS(durable_verify(config).json, "\"last_run\":8,");  // recover is no run: it takes none
  EXPECT_HAS(durable_run(config), "\"run_id\":9,");
}

TEST(DurableRunIds, AnIdTheDatabaseHadIsRefusedBeforeAnythingIsWritten) {
  TempDir base;
  const std::string dir = base.path + "/db", acks = base.path + "/acks";
  fs::create_directory(dir);
  DurableRunConfig config = durable_config(dir);
  durable_run(config);
  durable_run(config);  // runs 1 and 2
  const auto before = tree(dir);
  config.acks_paths = {acks};
  for (u64 taken : {u64{1}, u64{2}}) {
    config.run_id = taken;
    EXPECT_HAS(invalid_argument_of([&] { durable_run(config); }),
               "run_id: " + std::to_string(taken) + " is not above the last run of the database in '" + dir +
                   "' (run 2)");
  }
  EXPECT_EQ(tree(dir), before);
  EXPECT_FALSE(fs::exists(acks)) << "the acks file was written before the run id was checked";
}

TEST(DurableRunIds, TheAcksHeaderNamesTheRunAndTheDatabase) {
  TempDir base;
  const std::string dir = base.path + "/db";
  fs::create_directory(dir);
  const std::string json = durable_run(durable_config(dir, base.path + "/acks"));
  const std::string database = database_id_text(durable_test::database_id_of(dir));
  EXPECT_EQ(first_line(base.path + "/acks"), "# run 1 of database " + database);
  EXPECT_HAS(json, "\"database\":\"" + database + "\"");
  // A second run appends its own header and stamps.
  durable_run(durable_config(dir, base.path + "/acks"));
  u64 runs = 0;
  AcksFile(base.path + "/acks").for_each([&](const AcksHeader& h) { EXPECT_EQ(h.run_id, ++runs); },
                                         [&](const Ack& ack) { EXPECT_EQ(run_of_stamp(ack.stamp), runs); });
  EXPECT_EQ(runs, 2u);
}

// The sequence: a copy saved before run 2 holds none of its commits.
TEST(DurableRunIds, ACopySavedBeforeARunReportsThatRunsAcksMissing) {
  TempDir base;
  const std::string dir = base.path + "/db", saved = base.path + "/saved";
  fs::create_directory(dir);
  durable_run(durable_config(dir, base.path + "/a1"));
  fs::copy(dir, saved, fs::copy_options::recursive);
  durable_run(durable_config(dir, base.path + "/a2"));
  const u64 acked = read_acks(base.path + "/a2").size();
  ASSERT_GT(acked, 10u);

  DurableRunConfig check = durable_config(saved, base.path + "/a2");
  const DurableVerdict verdict = durable_verify(check);
  EXPECT_FALSE(verdict.ok);
  EXPECT_HAS(verdict.json, "\"acknowledged\":" + std::to_string(acked) + ",\"missing\":" + std::to_string(acked));
  EXPECT_HAS(verdict.json, "\"run\":2,");

  check = durable_config(dir);
  check.acks_paths = {base.path + "/a1", base.path + "/a2"};
  EXPECT_TRUE(durable_verify(check).ok);
}

TEST(DurableRunIds, AcksOfAnotherDatabaseAreNeverFoundInThisOne) {
  TempDir base;
  const std::string one = base.path + "/one", two = base.path + "/two";
  fs::create_directory(one);
  fs::create_directory(two);
  durable_run(durable_config(one, base.path + "/acks-one"));
  durable_run(durable_config(two));  // run 1 too, of another database
  const DurableVerdict verdict = durable_verify(durable_config(two, base.path + "/acks-one"));
  EXPECT_FALSE(verdict.ok);
  EXPECT_HAS(verdict.json, "\"this_database\":false");
}

// ---------------------------------------------------------------------------
// The acks file, checked before the directory is written.

TEST(DurableAcksSink, AFifoADeviceOrAnUnwritableFileIsRefusedBeforeTheDirectoryIsWritten) {
  TempDir base;
  const std::string dir = base.path + "/db", fifo = base.path + "/fifo", mine = base.path + "/mine";
  fs::create_directory(dir);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  durable_test::write_bytes(mine, "my notes\n");
  const std::vector<std::pair<std::string, std::string>> sinks = {
      {fifo, "is a FIFO, not a regular file"},
      {"/dev/null", "is a character device, not a regular file"},
      {"/proc/version", "acks file '/proc/version': "},  // opens as root, and then its write fails
      {mine, "line 1: expected 'N STAMP' or 'P STAMP'"},
  };
  for (const auto& [path, message] : sinks) {
    const std::string what = invalid_argument_of([&] { durable_run(durable_config(dir, path)); });
    EXPECT_HAS(what, message);
    EXPECT_EQ(what.find('\n'), std::string::npos);
    EXPECT_TRUE(tree(dir).empty()) << path << ": the directory was written before the acks file was refused";
  }
  EXPECT_EQ(first_line(mine), "my notes");
  EXPECT_EQ(fs::file_size(mine), 9u);
}

TEST(DurableAcksSink, AFileThatCannotBeWrittenIsRefusedNamingTheErrno) {
  TempDir base;
  const std::string dir = base.path + "/db";
  fs::create_directory(dir);
  const std::string what = invalid_argument_of([&] { durable_run(durable_config(dir, "/proc/version")); });
  // Root opens /proc/version and its write fails (EIO); anyone else cannot open it (EACCES).
  EXPECT_TRUE(what.find("(EIO)") != std::string::npos || what.find("(EACCES)") != std::string::npos) << what;
}

TEST(DurableAcksSink, ReadingAFifoIsRefusedNotWaitedOn) {
  TempDir base;
  const std::string fifo = base.path + "/fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  EXPECT_HAS(invalid_argument_of([&] { AcksFile file(fifo); }), "is a FIFO");
}

TEST(DurableAcksSink, ALineLongerThanAnyIsRefusedWithoutReadingTheRest) {
  TempDir base;
  const std::string path = base.path + "/acks";
  {
    std::ofstream out(path);
    out << "# run 1 of database 00000000000000aa\n";
  }
  fs::resize_file(path, u64{6} << 30);  // 6 GiB of zeros, sparse: before issue 56, read whole (bad_alloc)
  EXPECT_HAS(invalid_argument_of([&] { AcksFile file(path); }), "line 2: expected");
}

}  // namespace
}  // namespace dbrepro::tpcc
