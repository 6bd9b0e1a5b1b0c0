// No silent loss (issue 21): a damaged, incomplete, foreign or shared
// database directory is refused with a message naming the file (and the
// offset), never recovered around or re-created; what crashes and failed
// checkpoints leave is removed on the next open; a torn log tail is still
// ignored.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "recovery/checked_blocks.hpp"
#include "durable_test_files.hpp"
#include "recovery/durable_files.hpp"
#include "recovery_test_db.hpp"

namespace dbrepro::tpcc {
namespace {

using namespace recovery_test;
using namespace durable_test;
using recovery::DurableFiles;
using recovery::Refused;

long size_of(const std::string& path) {
  struct stat st{};
  return ::stat(path.c_str(), &st) == 0 ? static_cast<long>(st.st_size) : -1;
}

void flip_byte(const std::string& path, long offset) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.seekg(offset);
  char c = 0;
  f.read(&c, 1);
  c = static_cast<char>(c ^ 0x10);
  f.seekp(offset);
  f.write(&c, 1);
}

void truncate_to(const std::string& path, long size) { ASSERT_EQ(::truncate(path.c_str(), size), 0); }

// The database of crash_with_history, crashed (log.1 holds its history).
void crashed_database(const std::string& dir) {
  DurableFiles files(dir);
  crash_with_history(files);
}

// Opens the directory as durable-run does; returns the Refused message ("" if it opened).
std::string open_refusal(const std::string& dir) {
  try {
    DurableFiles files(dir);
    E engine(options_for(files));
    Tables t(engine);
    if (!files.exists()) return "";
    files.open(engine);
    return "";
  } catch (const Refused& e) {
    return e.what();
  }
}

#define EXPECT_HAS(text, part) EXPECT_NE(std::string(text).find(part), std::string::npos) << (text)

// Offsets in log.1: its 32-byte file header, then the records; the first
// is T1's update of a district row.
constexpr long kFirstRecord = sizeof(LogFileHeader);

TEST(RecoveryDamage, AFlippedPayloadByteInTheLogIsRefusedNamingFileAndOffset) {
  TempDir dir;
  crashed_database(dir.path);
  flip_byte(dir.path + "/log.1", kFirstRecord + sizeof(LogRecordHeader) + 1);
  const std::string why = open_refusal(dir.path);
  EXPECT_HAS(why, dir.path + "/log.1: record at offset " + std::to_string(kFirstRecord));
  EXPECT_HAS(why, "payload checksum mismatch");
}

TEST(RecoveryDamage, AFlippedHeaderByteInTheLogIsRefused) {
  TempDir dir;
  crashed_database(dir.path);
  flip_byte(dir.path + "/log.1", kFirstRecord + 17);  // the first record's transaction id
  const std::string why = open_refusal(dir.path);
  EXPECT_HAS(why, "log.1: record at offset " + std::to_string(kFirstRecord));
  EXPECT_HAS(why, "valid records follow");
}

TEST(RecoveryDamage, EveryFlippedByteOfTheLogIsRefused) {
  TempDir dir;
  crashed_database(dir.path);
  const std::string log = dir.path + "/log.1";
  std::ifstream in(log, std::ios::binary);
  const std::string saved((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  LogFileHeader header;
  std::memcpy(&header, saved.data(), sizeof(header));
  const LogFileTag tag{header.database_id, header.generation};
  EXPECT_EQ(recovery::read_log(log, tag).torn_bytes, 0u);
  for (size_t at = 0; at < saved.size(); ++at) {
    std::string damaged = saved;
    damaged[at] = static_cast<char>(damaged[at] ^ 0x10);
    std::ofstream(log, std::ios::binary | std::ios::trunc) << damaged;
    try {
      recovery::read_log(log, tag);
      ADD_FAILURE() << "a flip at offset " << at << " of " << saved.size() << " was accepted";
    } catch (const Refused& e) {
      EXPECT_HAS(e.what(), log + ": ");
    }
  }
}

TEST(RecoveryDamage, AFlippedByteInTheSnapshotIsRefusedNamingTheBlock) {
  TempDir dir;
  crashed_database(dir.path);
  const std::string snapshot = dir.path + "/snapshot";
  const long size = size_of(snapshot);
  ASSERT_GT(size, 100);
  for (long at : {8L, 13L, size / 2, size - 1}) {
    const std::string saved = dir.path + "/saved";
    std::filesystem::copy_file(snapshot, saved, std::filesystem::copy_options::overwrite_existing);
    flip_byte(snapshot, at);
    const std::string why = open_refusal(dir.path);
    EXPECT_HAS(why, snapshot + ": block at offset 8");
    std::filesystem::copy_file(saved, snapshot, std::filesystem::copy_options::overwrite_existing);
  }
  truncate_to(snapshot, size - 3);
  EXPECT_HAS(open_refusal(dir.path), "cut short");
}

TEST(RecoveryDamage, ATornTailIsStillIgnored) {
  TempDir dir;
  crashed_database(dir.path);
  const std::string log = dir.path + "/log.1";
  truncate_to(log, size_of(log) - 5);  // the crash cut the last record (T4's commit) short
  DurableFiles files(dir.path);
  E engine(options_for(files));
  Tables t(engine);
  const auto stats = files.open(engine);
  EXPECT_EQ(stats.torn_bytes, sizeof(LogRecordHeader) - 5);
  EXPECT_EQ(stats.committed, 1u) << "T4's commit record was cut off";
  EXPECT_EQ(ytd(engine, t, 4), 10) << "T4 is undone";
}

// After a power loss the file may have grown while its last sectors never
// reached the disk: zeros from inside the last record to the end.
TEST(RecoveryDamage, UnwrittenSectorsAtTheEndAreATornTail) {
  TempDir dir;
  crashed_database(dir.path);
  const std::string log = dir.path + "/log.1";
  const long size = size_of(log);
  {
    std::fstream f(log, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(size - 20);
    const std::string zeros(20 + 1024, '\0');
    f.write(zeros.data(), static_cast<long>(zeros.size()));
  }
  DurableFiles files(dir.path);
  E engine(options_for(files));
  Tables t(engine);
  const auto stats = files.open(engine);
  EXPECT_EQ(stats.torn_bytes, sizeof(LogRecordHeader) + 1024);
  EXPECT_EQ(stats.committed, 1u) << "T4's commit record did not reach the disk";
}

TEST(RecoveryDamage, AMissingLogIsRefusedNotReadAsEmpty) {
  TempDir dir;
  crashed_database(dir.path);
  std::filesystem::remove(dir.path + "/log.1");
  const std::string why = open_refusal(dir.path);
  EXPECT_HAS(why, dir.path + "/log.1: missing");
}

TEST(RecoveryDamage, ALogWithoutItsSnapshotIsRefusedAndLeftAlone) {
  TempDir dir;
  crashed_database(dir.path);
  std::filesystem::remove(dir.path + "/snapshot");
  const long size = size_of(dir.path + "/log.1");
  const std::string why = open_refusal(dir.path);
  EXPECT_HAS(why, "holds log.1 but no snapshot");
  EXPECT_EQ(size_of(dir.path + "/log.1"), size) << "the surviving log was touched";
  EXPECT_EQ(size_of(dir.path + "/snapshot"), -1) << "a database was created over it";
}

TEST(RecoveryDamage, ALogOfAnotherDatabaseOrGenerationIsRefused) {
  TempDir a, b;
  crashed_database(a.path);
  crashed_database(b.path);
  std::filesystem::copy_file(b.path + "/log.1", a.path + "/log.1", std::filesystem::copy_options::overwrite_existing);
  EXPECT_HAS(open_refusal(a.path), "the log chain is broken");

  TempDir c;
  crashed_database(c.path);
  std::filesystem::copy_file(c.path + "/log.1", c.path + "/log.2");  // as if the snapshot were an older one
  EXPECT_HAS(open_refusal(c.path), "log.2: a log newer than the snapshot");
}

TEST(RecoveryDamage, FilesOfFormat1AreRefusedWithALineSayingSo) {
  TempDir dir;
  crashed_database(dir.path);
  {
    std::ofstream old(dir.path + "/snapshot", std::ios::binary | std::ios::trunc);
    const u64 magic = recovery::kSnapshotMagicV1;
    old.write(reinterpret_cast<const char*>(&magic), sizeof(magic));
  }
  EXPECT_HAS(open_refusal(dir.path), "a snapshot of format 1");

  TempDir fresh;
  crashed_database(fresh.path);
  std::ofstream(fresh.path + "/log.1", std::ios::binary | std::ios::trunc) << std::string(60, '\0');
  EXPECT_HAS(open_refusal(fresh.path), "log.1: a log of format 1");
}

TEST(RecoveryDamage, ASecondOpenOfTheDirectoryIsRefused) {
  TempDir dir;
  DurableFiles first(dir.path);
  try {
    DurableFiles second(dir.path);
    FAIL() << "two opens of one directory";
  } catch (const Refused& e) {
    EXPECT_HAS(e.what(), "in use by another process");
  }
}

TEST(RecoveryDamage, LeftoversOfACrashedCheckpointAreRemovedOnOpen) {
  TempDir dir;
  crashed_database(dir.path);
  // Each begins as this database wrote it (recovery/leftovers.hpp): a
  // partial snapshot, log.pending (the engine's first log, of no database
  // yet), the next generation's empty log. Files that are not the
  // database's are left alone.
  write_bytes(dir.path + "/snapshot.tmp", magic_bytes(recovery::kSnapshotMagic) + "partial");
  write_bytes(dir.path + "/log.pending", header_bytes(LogFileTag{}) + "records of the open the crash interrupted");
  write_bytes(dir.path + "/log.2", header_bytes(LogFileTag{database_id_of(dir.path), 2}));
  std::ofstream(dir.path + "/log.0") << "not a name the database writes";
  std::ofstream(dir.path + "/notes.txt") << "the user's";
  {
    DurableFiles files(dir.path);
    E engine(options_for(files));
    Tables t(engine);
    ASSERT_TRUE(files.exists());
    files.open(engine);
    expect_recovered(engine, t);
    EXPECT_EQ(files.generation(), 2u);
  }
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir.path)) names.push_back(e.path().filename());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"log.0", "log.2", "notes.txt", "snapshot"}));
}

TEST(RecoveryDamage, AnInterruptedCreationStartsAfresh) {
  TempDir dir;
  write_bytes(dir.path + "/log.pending", header_bytes(LogFileTag{}) + "records of a load the crash interrupted");
  write_bytes(dir.path + "/snapshot.tmp", magic_bytes(recovery::kSnapshotMagic) + "partial");
  write_bytes(dir.path + "/log.1", header_bytes(LogFileTag{42, 1}));  // the first checkpoint's new log
  DurableFiles files(dir.path);
  EXPECT_FALSE(files.exists());
  EXPECT_FALSE(std::filesystem::exists(dir.path + "/snapshot.tmp"));
  EXPECT_FALSE(std::filesystem::exists(dir.path + "/log.1"));
  EXPECT_FALSE(std::filesystem::exists(dir.path + "/log.pending"));
}

TEST(RecoveryDamage, Crc32cMatchesTheStandardCheckValue) {
  const char text[] = "123456789";
  EXPECT_EQ(crc32c(text, 9), 0xE3069283u);
  EXPECT_EQ(crc32c_extend(crc32c(text, 4), text + 4, 5), 0xE3069283u);
}

}  // namespace
}  // namespace dbrepro::tpcc
