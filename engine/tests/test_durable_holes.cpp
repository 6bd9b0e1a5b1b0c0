// The four holes an independent soak of durable-run found (issue 33): run
// ids the commit stamp cannot hold, a lock that a removed lock file
// bypassed, refusals that wrote into the directory they refused, and a
// failed checkpoint's snapshot.tmp in the way of the next open.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <string>
#include <utility>

#include "driver/tpcc/durable_run.hpp"
#include "driver/tpcc/terminals.hpp"
#include "durable_test_files.hpp"
#include "recovery/tpcc_layout.hpp"
#include "recovery_test_db.hpp"

namespace dbrepro::tpcc {
namespace {

using namespace recovery_test;
using durable_test::tables_layout;
using durable_test::tree;
using recovery::DurableFiles;
using recovery::Refused;

#define EXPECT_HAS(text, part) EXPECT_NE(std::string(text).find(part), std::string::npos) << (text)

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

void flip_byte(const std::string& path, long offset) {
  std::string bytes = tree(std::filesystem::path(path).parent_path())[std::filesystem::path(path).filename()];
  bytes.at(static_cast<size_t>(offset)) ^= 0x10;
  write_file(path, bytes);
}

TEST(DurableHoles, RunIdsAndTerminalsAboveTheStampsBitsAreRefused) {
  // The alias the limit prevents: 2^24 + 1 gave run 1's stamps.
  EXPECT_EQ(terminal_clock_base((u64{1} << 24) + 1, 3), terminal_clock_base(1, 3));
  EXPECT_EQ(terminal_clock_base(kMaxRunId, kMaxDurableTerminals - 1) >> 40, kMaxRunId);
  EXPECT_NE(terminal_clock_base(kMaxRunId, 0), terminal_clock_base(kMaxRunId - 1, 0));
  EXPECT_EQ((terminal_clock_base(0, kMaxDurableTerminals - 1) >> 28) & 0xFFF, u64{kMaxDurableTerminals});

  TempDir dir;
  DurableRunConfig config;
  config.dir = dir.path;
  config.run.stack = "step1";
  config.run.warehouses = 1;
  config.run.terminals = 1;
  config.run.transactions = 1;
  config.run_id = kMaxRunId + 1;
  EXPECT_THROW(durable_run(config), std::invalid_argument);
  config.run_id = kMaxRunId;
  config.run.terminals = kMaxDurableTerminals + 1;
  EXPECT_THROW(durable_run(config), std::invalid_argument);
  EXPECT_TRUE(tree(dir.path).empty()) << "refused after writing";
}

TEST(DurableHoles, TheLockSurvivesItsFileBeingRemoved) {
  TempDir dir;
  write_file(dir.path + "/lock", "");  // what earlier builds locked
  {
    DurableFiles first(dir.path);
    std::filesystem::remove(dir.path + "/lock");
    try {
      DurableFiles second(dir.path);
      FAIL() << "a second open after the lock file was removed";
    } catch (const Refused& e) {
      EXPECT_HAS(e.what(), "in use by another process");
    }
    EXPECT_TRUE(tree(dir.path).empty()) << "the lock made a file";
  }
  DurableFiles after(dir.path);  // released with the first
}

TEST(DurableHoles, TheLayoutProbeIsTheEnginesCatalog) {
  TempDir dir;
  DurableFiles files(dir.path);
  E engine(options_for(files));
  Database<E> db(engine);
  const recovery::TableLayout expected = recovery::table_layout(engine);
  const recovery::TableLayout probed = database_layout();
  ASSERT_EQ(probed.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(probed[i].name, expected[i].name) << "table " << i + 1;
    EXPECT_EQ(probed[i].row_size, expected[i].row_size) << expected[i].name;
  }
}

TEST(DurableHoles, InspectingADirectoryItRefusesWritesNothing) {
  const recovery::TableLayout layout = tables_layout();
  const std::vector<std::pair<const char*, std::function<void(const std::string&)>>> damages = {
      {"no snapshot", [](const std::string& d) { std::filesystem::remove(d + "/snapshot"); }},
      {"missing", [](const std::string& d) { std::filesystem::remove(d + "/log.1"); }},
      {"is damaged", [](const std::string& d) { flip_byte(d + "/log.1", sizeof(LogFileHeader) + 40); }},
      {"snapshot: block at offset", [](const std::string& d) { flip_byte(d + "/snapshot", 100); }},
      {"newer than the snapshot", [](const std::string& d) { write_file(d + "/log.3", tree(d)["log.1"]); }},
  };
  for (const auto& [refusal, damage] : damages) {
    TempDir dir;
    {
      DurableFiles files(dir.path);
      crash_with_history(files);
    }
    write_file(dir.path + "/snapshot.tmp", "a failed checkpoint's");  // leftovers stay where it refuses
    damage(dir.path);
    const auto before = tree(dir.path);
    try {
      DurableFiles files(dir.path);
      files.inspect(layout);
      ADD_FAILURE() << refusal << ": not refused";
    } catch (const Refused& e) {
      EXPECT_HAS(e.what(), refusal);
    }
    EXPECT_EQ(tree(dir.path), before) << refusal;
  }
}

TEST(DurableHoles, AStaleSnapshotTmpIsRemovedBeforeTheEngineWrites) {
  TempDir dir;
  {
    DurableFiles files(dir.path);
    crash_with_history(files);
  }
  const std::string partial = durable_test::partial_snapshot(durable_test::database_id_of(dir.path), 100000);
  write_file(dir.path + "/snapshot.tmp", partial);
  DurableFiles files(dir.path);
  recovery::Inspection found = files.inspect(tables_layout());
  ASSERT_TRUE(found.database);
  EXPECT_EQ(tree(dir.path).count("snapshot.tmp"), 1u) << "inspect() removed it";
  const std::string line = files.remove_leftovers(found);
  EXPECT_HAS(line, "snapshot.tmp (100000 bytes)");
  EXPECT_EQ(line.find('\n'), std::string::npos);
  EXPECT_EQ(tree(dir.path).count("snapshot.tmp"), 0u);
  E engine(options_for(files));  // its log.pending is the first file written
  Tables t(engine);
  files.recover(engine, std::move(found));
  expect_recovered(engine, t);
}

}  // namespace
}  // namespace dbrepro::tpcc
