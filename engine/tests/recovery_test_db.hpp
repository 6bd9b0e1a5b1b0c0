#pragma once
// Shared by the recovery tests: a temporary database directory, a few
// tables of every kind, and a "crash" with a known history (T1 commits, T2
// aborts, T3 is interrupted, T4 commits) with what recovery must rebuild.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "recovery/durable_files.hpp"
#include "stack/engine.hpp"
#include "stack/ladder.hpp"
#include "tpcc/database.hpp"

namespace dbrepro::tpcc::recovery_test {

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

inline EngineOptions options_for(const DurableFiles& files) {
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

inline i64 ytd(E& engine, Tables& t, u32 d) {
  i64 v = -1;
  engine.begin();
  t.district.lookup1({1, d}, [&](const District& row) { v = row.d_ytd; });
  engine.commit();
  return v;
}
inline bool has_key(E& engine, Tables& t, u32 o) {
  bool found = false;
  engine.begin();
  t.by_customer.scan({1, 1, 1, o}, [&](const OrderByCustomer::Key& k) {
    found = k.o_id == o && k.o_c_id == 1;
    return false;
  });
  engine.commit();
  return found;
}
inline std::vector<u64> history_dates(E& engine) {
  std::vector<u64> dates;
  engine.catalog().lookup(History::kName).heap->for_each([&](RecordId, const std::byte* bytes) {
    History h;
    std::memcpy(&h, bytes, sizeof(h));
    dates.push_back(h.h_date);
  });
  return dates;
}
inline History history(u64 date) {
  History h{};
  h.h_date = date;
  return h;
}

// Builds the database, checkpoints, then: T1 commits, T2 aborts, T3 is
// interrupted (its records reach the disk with T4's commit), T4 commits.
inline void crash_with_history(DurableFiles& files) {
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

inline void expect_recovered(E& engine, Tables& t) {
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

}  // namespace dbrepro::tpcc::recovery_test
