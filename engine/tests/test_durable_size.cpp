// Issue 56, item 2: a database opens at its own size. The engine's cache is
// sized by the warehouses the snapshot holds and the bytes its files hold,
// not by the command line (which defaulted to 1 warehouse: a database of
// 16 did not open); warehouses given for an existing database must agree,
// refused before anything is written. tests/test_durable_any_size.py opens
// 16 and 20 warehouses through dbrepro-native.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "driver/tpcc/durable_run.hpp"
#include "durable_test_files.hpp"
#include "recovery_test_db.hpp"

namespace dbrepro::tpcc {
namespace {

using durable_test::tree;
using recovery_test::TempDir;

#define EXPECT_HAS(text, part) EXPECT_NE(std::string(text).find(part), std::string::npos) << (text)

constexpr u64 kMiB = u64{1} << 20, kGiB = u64{1} << 30;
constexpr u32 kPage = 8192;

TEST(DurableSize, TheCacheHoldsTheWarehousesTheDatabaseHas) {
  // A new database, or one near its loaded size: 512 MiB a warehouse and 1 GiB to grow, as before.
  for (u32 warehouses : {1u, 16u, 20u})
    EXPECT_EQ(durable_cache_pages(warehouses, 0, kPage), (512 * kMiB * warehouses + kGiB) / kPage);
  EXPECT_GT(durable_cache_pages(16, 0, kPage) * kPage, 16 * kWarehouseBytes + kGiB);
}

TEST(DurableSize, ADatabaseThatGrewPastItsFirstBudgetStillFits) {
  // One warehouse grown (run after run) to 3 GiB of snapshot and log: the
  // first budget (1.5 GiB) no longer holds it; twice what is stored does.
  const u64 stored = 3 * kGiB;
  EXPECT_LT(durable_cache_pages(1, 0, kPage) * kPage, stored);
  EXPECT_GE(durable_cache_pages(1, stored, kPage) * kPage, 2 * stored + kGiB);
  EXPECT_GE(durable_cache_pages(1, stored + 1, kPage), durable_cache_pages(1, stored, kPage));
}

TEST(DurableSize, ADatabaseOpensAtItsOwnWarehousesAndRefusesOthersBeforeWriting) {
  TempDir dir;
  DurableRunConfig config = durable_test::durable_config(dir.path);
  config.run.warehouses = 2;
  config.warehouses_given = true;
  EXPECT_HAS(durable_run(config), "\"warehouses\":2,");

  DurableRunConfig open = config;  // as the command line gives it: no --warehouses
  open.run.warehouses = 1;
  open.warehouses_given = false;
  EXPECT_HAS(durable_run(open), "\"warehouses\":2,");
  EXPECT_HAS(durable_verify(open).json, "\"warehouses\":2,");

  const auto before = tree(dir.path);
  open.run.warehouses = 3;
  open.warehouses_given = true;
  try {
    durable_run(open);
    ADD_FAILURE() << "opened a database of 2 warehouses as 3";
  } catch (const std::invalid_argument& e) {
    EXPECT_HAS(e.what(), "warehouses: 3 given, but the database in '" + dir.path + "' has 2");
  }
  EXPECT_THROW(durable_verify(open), std::invalid_argument);
  EXPECT_EQ(tree(dir.path), before);
}

}  // namespace
}  // namespace dbrepro::tpcc
