// Issue 56, items 3 and 4: only our files, only in our directory, and a
// vanished directory noticed. A directory that is neither empty nor a
// database is refused, naming its first file that is not a database's;
// a leftover is removed only where its first bytes show it is the
// database's (a user's log.pending, snapshot.tmp or log.02 is refused and
// kept); a snapshot or log that is not a regular file is refused, without
// blocking on a FIFO. A held directory that is deleted, or whose snapshot
// or log is removed, is noticed (check_held); one renamed is not.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <string>

#include "driver/tpcc/durable_run.hpp"
#include "durable_test_files.hpp"
#include "recovery_test_db.hpp"

namespace dbrepro::tpcc {
namespace {

using namespace recovery_test;
using durable_test::tree;
using durable_test::write_bytes;
using recovery::DurableFiles;
using recovery::Refused;
using recovery::Vanished;
namespace fs = std::filesystem;

#define EXPECT_HAS(text, part) EXPECT_NE(std::string(text).find(part), std::string::npos) << (text)

// What inspecting `dir` (a database of recovery_test's tables) refuses ("" if it does not).
std::string refusal(const std::string& dir) {
  try {
    DurableFiles files(dir);
    files.inspect(durable_test::tables_layout());
  } catch (const Refused& e) {
    return e.what();
  }
  return "";
}

// A durable run of a few transactions on `dir` (its Refused message, "" if it ran).
std::string run_refusal(const std::string& dir) {
  try {
    durable_run(durable_test::durable_config(dir));
  } catch (const Refused& e) {
    return e.what();
  }
  return "";
}

// The case: a file of the user's under a name the database uses,
// in a directory with no database, is refused and kept.
TEST(DurableOwnFiles, AUsersFileUnderADatabasesNameIsRefusedAndKept) {
  for (const char* name : {"log.pending", "snapshot.tmp"}) {
    TempDir dir;
    write_bytes(dir.path + "/" + name, "mine\n");
    EXPECT_HAS(run_refusal(dir.path), dir.path + "/" + name + ": not a file this database wrote");
    EXPECT_EQ(tree(dir.path), (std::map<std::string, std::string>{{name, "mine\n"}})) << name;
  }
}

TEST(DurableOwnFiles, ADirectoryNeitherEmptyNorADatabaseIsRefusedNamingItsFirstForeignFile) {
  for (const char* name : {"log.0", "log.02", "notes.txt"}) {
    TempDir dir;
    write_bytes(dir.path + "/" + name, "mine\n");
    write_bytes(dir.path + "/zz-more", "mine too\n");
    const std::string why = run_refusal(dir.path);
    EXPECT_HAS(why, "holds '" + std::string(name) + "', which is not a file of a dbrepro database");
    EXPECT_EQ(why.find("log.2"), std::string::npos) << "log.02 named as log.2: " << why;
    EXPECT_EQ(tree(dir.path).size(), 2u);
  }
}

TEST(DurableOwnFiles, LeftoversThatBeginAsOursAreRemovedAndNothingElse) {
  TempDir dir;
  write_bytes(dir.path + "/log.pending", "");  // created, the crash came before its header
  write_bytes(dir.path + "/lock", "");         // what builds before issue 33 left: never used, never removed
  EXPECT_EQ(run_refusal(dir.path), "");
  const auto files = tree(dir.path);
  EXPECT_EQ(files.count("lock"), 1u);
  EXPECT_EQ(files.count("snapshot"), 1u);

  // In a database, names that are not its own are left alone.
  write_bytes(dir.path + "/log.02", "mine\n");
  write_bytes(dir.path + "/notes.txt", "mine\n");
  EXPECT_EQ(run_refusal(dir.path), "");
  EXPECT_EQ(tree(dir.path)["log.02"], "mine\n");
  EXPECT_EQ(tree(dir.path)["notes.txt"], "mine\n");
}

TEST(DurableOwnFiles, LeftoversInADatabaseMustBeItsOwn) {
  TempDir dir;
  {
    DurableFiles files(dir.path);
    crash_with_history(files);  // snapshot, log.1
  }
  const u64 id = durable_test::database_id_of(dir.path);
  const std::vector<std::pair<std::string, std::string>> foreign = {
      {"snapshot.tmp", "mine\n"},
      {"snapshot.tmp", durable_test::partial_snapshot(id + 1, 100)},           // another database's
      {"log.pending", durable_test::header_bytes(LogFileTag{id, 3})},          // not the engine's first log
      {"log.2", durable_test::header_bytes(LogFileTag{id + 1, 2})},            // another database's
  };
  for (const auto& [name, bytes] : foreign) {
    write_bytes(dir.path + "/" + name, bytes);
    const auto before = tree(dir.path);
    EXPECT_HAS(refusal(dir.path), dir.path + "/" + name + ": not a file this database wrote");
    EXPECT_EQ(tree(dir.path), before);
    fs::remove(dir.path + "/" + name);
  }
  fs::create_symlink("/dev/null", dir.path + "/log.pending");  // never ours, whatever it points to
  EXPECT_HAS(refusal(dir.path), "log.pending: not a file this database wrote");
  fs::remove(dir.path + "/log.pending");
  EXPECT_EQ(refusal(dir.path), "") << "the database itself was refused";
}

TEST(DurableOwnFiles, ASnapshotThatIsNotARegularFileIsRefusedWithoutBlocking) {
  TempDir as_directory, as_fifo;
  fs::create_directory(as_directory.path + "/snapshot");
  EXPECT_HAS(refusal(as_directory.path), "/snapshot: is a directory, not a regular file");
  ASSERT_EQ(::mkfifo((as_fifo.path + "/snapshot").c_str(), 0644), 0);
  EXPECT_HAS(refusal(as_fifo.path), "/snapshot: is a FIFO, not a regular file");
}

TEST(DurableOwnFiles, ALogThatIsAFifoIsRefusedWithoutBlocking) {
  TempDir dir;
  {
    DurableFiles files(dir.path);
    crash_with_history(files);
  }
  fs::remove(dir.path + "/log.1");
  ASSERT_EQ(::mkfifo((dir.path + "/log.1").c_str(), 0644), 0);
  EXPECT_HAS(refusal(dir.path), "/log.1: is a FIFO, not a regular file");
}

TEST(DurableOwnFiles, ANewlineInThePathStaysInOneLine) {
  TempDir base;
  const std::string dir = base.path + "/a\nb";
  fs::create_directory(dir);
  write_bytes(dir + "/mine", "x");
  const std::string why = run_refusal(dir);
  EXPECT_HAS(why, "a\\x0ab");
  EXPECT_EQ(why.find('\n'), std::string::npos);
}

// ---------------------------------------------------------------------------
// A vanished directory.

TEST(DurableVanished, ADeletedDirectoryOrAFileOfItsRunGoneIsNoticedARenamedOneIsNot) {
  TempDir base;
  const std::string dir = base.path + "/db", moved = base.path + "/db.moved";
  fs::create_directory(dir);
  DurableFiles files(dir);
  E engine(options_for(files));
  Tables t(engine);
  files.checkpoint(engine);
  files.check_held();
  fs::rename(dir, moved);  // a rename within a file system: the run goes on where it started
  files.check_held();
  files.checkpoint(engine);
  files.check_held();

  fs::remove(moved + "/log.2");
  try {
    files.check_held();
    ADD_FAILURE() << "a removed log was not noticed";
  } catch (const Vanished& e) {
    EXPECT_HAS(e.what(), dir + "/log.2 was removed or replaced during the run");
  }
  fs::remove_all(moved);  // rm -rf, or the end of a move to another file system
  try {
    files.check_held();
    ADD_FAILURE() << "a deleted directory was not noticed";
  } catch (const Vanished& e) {
    EXPECT_HAS(e.what(), "database directory '" + dir + "' was deleted during the run");
  }
  EXPECT_THROW(files.checkpoint(engine), Vanished);
}

}  // namespace
}  // namespace dbrepro::tpcc
