// Concurrency of the full stack: sessions (one transaction context per
// terminal) on one engine; abort rolls back every kind of change; deadlock
// victims get LockTimeout and roll back; T terminals running TPC-C leave a
// database that meets the consistency conditions with no lost update (the
// counters that every commit bumps add up to exactly the commits).
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "driver/tpcc/terminals.hpp"
#include "stack/ladder.hpp"
#include "tpcc_test_db.hpp"

namespace dbrepro::tpcc {
namespace {

using namespace test_db;

static_assert(Engine<Step0>::kConcurrent && Engine<Step1>::kConcurrent && Engine<Step2>::kConcurrent);
static_assert(!Engine<Step3>::kConcurrent, "no main log: nothing to roll a deadlock victim back with");
static_assert(!Engine<Step5>::kConcurrent && !Engine<Step6>::kConcurrent && !Engine<Step10>::kConcurrent);

// Sum of (D_NEXT_O_ID - first id) over districts: one per committed New Order.
template <class E>
u64 orders_taken(Database<E>& db, u32 warehouses) {
  u64 n = 0;
  for (u32 w = 1; w <= warehouses; ++w)
    for (u32 d = 1; d <= kDistrictsPerWarehouse; ++d) n += district(db, w, d)->d_next_o_id - (kOrdersPerDistrict + 1);
  return n;
}

// Sum of (C_PAYMENT_CNT - 1) over customers: one per committed Payment.
template <class E>
u64 payments_made(Database<E>& db) {
  u64 n = 0;
  in_txn(db, [&] {
    db.customer.scan({1, 1, 1}, [&](const Customer::Key&, const Customer& c) {
      n += c.c_payment_cnt - 1;
      return true;
    });
  });
  return n;
}

template <class S>
void run_concurrent(u32 terminals, u32 warehouses, u64 transactions, std::array<double, kTxnTypeCount> mix) {
  Loaded<Engine<S>> loaded(warehouses, 7);
  RunConfig config;
  config.warehouses = warehouses;
  config.transactions = transactions;
  config.terminals = terminals;
  config.mix = mix;
  Random run_rng(99);
  const NURandConstants constants = NURandConstants::for_run(loaded.constants, run_rng);
  TerminalControl control;
  std::atomic<u64> acknowledged{0};
  const auto totals = run_terminals(loaded.engine, config, constants, 1, control,
                                    [&](u32, TxnType, u64) { acknowledged.fetch_add(1); });
  u64 attempted = 0, committed = 0;
  for (const TxnStats& s : totals) {
    attempted += s.commits + s.aborts;
    committed += s.commits;
  }
  EXPECT_EQ(attempted, transactions);
  EXPECT_EQ(acknowledged.load(), committed);
  EXPECT_EQ(orders_taken(loaded.db, warehouses), totals[static_cast<int>(TxnType::kNewOrder)].commits)
      << "a New Order's district update was lost or came from an aborted attempt";
  EXPECT_EQ(payments_made(loaded.db), totals[static_cast<int>(TxnType::kPayment)].commits)
      << "a Payment's customer update was lost or came from an aborted attempt";
  expect_consistent(loaded.db);
}

TEST(Concurrency, FourTerminalsOneWarehouseNewOrderPayment) {
  run_concurrent<Step0>(4, 1, 3000, {0.5, 0.5, 0, 0, 0});
}

TEST(Concurrency, FourTerminalsTwoWarehousesFullMixNoFlush) {
  run_concurrent<Step2>(4, 2, 2000, {0.45, 0.43, 0.04, 0.04, 0.04});
}

// Every kind of change, then abort: the database is as before, byte for byte.
TEST(Concurrency, AbortRollsBackUpdateCreateInsertErase) {
  Loaded<Engine<Step1>> loaded(1, 3);
  auto& db = loaded.db;
  const u64 before = database_hash(db);
  const auto sizes = table_sizes(db);
  db.engine.begin();
  db.district.update1({1, 1}, [](District& d) { d.d_next_o_id += 5; d.d_ytd += 12345; });
  Order o{};
  o.o_id = 99999;
  o.o_d_id = 1;
  o.o_w_id = 1;
  o.o_ol_cnt = 1;
  EXPECT_TRUE(db.order.insert({1, 1, 99999}, o));
  EXPECT_TRUE(db.order_by_customer.insert({1, 1, 7, 99999}));
  EXPECT_TRUE(db.new_order.erase({1, 1, 2101}));
  EXPECT_FALSE(db.new_order.erase({1, 1, 2101})) << "erased twice";
  db.history.insert(History{});
  db.customer.update1({1, 1, 7}, [](Customer& c) { c.c_balance -= 500; });
  db.customer.update1({1, 1, 7}, [](Customer& c) { c.c_balance -= 700; });  // twice: undone newest first
  u32 next_o_id = 0;  // the transaction sees its own change
  db.district.lookup1({1, 1}, [&](const District& d) { next_o_id = d.d_next_o_id; });
  EXPECT_EQ(next_o_id, kOrdersPerDistrict + 1 + 5);
  db.engine.abort();
  EXPECT_EQ(database_hash(db), before);
  EXPECT_EQ(table_sizes(db), sizes);
  expect_consistent(db);
}

// Two sessions lock two rows in opposite orders: one times out, rolls back,
// and the other finishes; the victim's change is gone.
TEST(Concurrency, DeadlockVictimRollsBack) {
  using E = Engine<Step2>;
  Loaded<E> loaded(1, 5);
  E::Session a(loaded.engine), b(loaded.engine);
  Database<E::Session> da(a), db_b(b);
  const i64 ytd1 = district(loaded.db, 1, 1)->d_ytd, ytd2 = district(loaded.db, 1, 2)->d_ytd;
  a.begin();
  b.begin();
  da.district.update1({1, 1}, [](District& d) { d.d_ytd += 1; });
  db_b.district.update1({1, 2}, [](District& d) { d.d_ytd += 10; });
  std::atomic<int> victims{0};
  auto second = [&](E::Session& s, Database<E::Session>& d, u32 district_id, i64 add) {
    try {
      d.district.update1({1, district_id}, [&](District& row) { row.d_ytd += add; });
      s.commit();
    } catch (const LockTimeout&) {
      ++victims;
      s.abort();
    }
  };
  std::thread ta([&] { second(a, da, 2, 100); });
  std::thread tb([&] { second(b, db_b, 1, 1000); });
  ta.join();
  tb.join();
  ASSERT_GE(victims.load(), 1);
  const i64 d1 = district(loaded.db, 1, 1)->d_ytd - ytd1, d2 = district(loaded.db, 1, 2)->d_ytd - ytd2;
  if (victims == 2) {
    EXPECT_EQ(d1, 0);
    EXPECT_EQ(d2, 0);
  } else if (d1 == 1) {  // a committed: +1 on district 1, +100 on district 2
    EXPECT_EQ(d2, 100);
  } else {  // b committed
    EXPECT_EQ(d1, 1000);
    EXPECT_EQ(d2, 10);
  }
}

}  // namespace
}  // namespace dbrepro::tpcc
