// Tests of Order-Status (clause 2.6), Delivery (2.7) and Stock-Level (2.8),
// each run directly on a freshly loaded database, and of whole runs of the
// spec's mix: every type commits and the consistency conditions hold.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <vector>

#include "driver/tpcc/run.hpp"
#include "driver/tpcc/run_config.hpp"
#include "stack/ladder.hpp"
#include "tpcc/mix.hpp"
#include "tpcc_test_db.hpp"

namespace dbrepro::tpcc {
namespace {

using namespace test_db;
using IntEngine = PagedEngine<IntegerKeyCompare>;
using FullEngine = Engine<Step0>;

template <class E>
class TpccFullMix : public ::testing::Test {
 protected:
  Loaded<E> loaded{1, 7};
  Database<E>& db = loaded.db;
};
using Engines = ::testing::Types<IntEngine, FullEngine, MemEngine>;
TYPED_TEST_SUITE(TpccFullMix, Engines);

// The oldest undelivered order of a district (0: none).
template <class E>
u32 oldest_new_order(Database<E>& db, u32 w, u32 d) {
  u32 o_id = 0;
  in_txn(db, [&] {
    db.new_order.scan({w, d, 0}, [&](const NewOrder::Key& k, const NewOrder&) {
      if (k.no_w_id == w && k.no_d_id == d) o_id = k.no_o_id;
      return false;
    });
  });
  return o_id;
}

TYPED_TEST(TpccFullMix, OrderStatusShowsTheCustomersNewestOrderAndChangesNothing) {
  auto& db = this->db;
  const u64 before = database_hash(db);
  OrderStatusOutput out;
  ASSERT_TRUE(order_status(db, OrderStatusInput{1, 3, false, 42, 0}, out));
  EXPECT_EQ(database_hash(db), before) << "Order-Status is read-only";
  EXPECT_EQ(out.c_id, 42u);
  EXPECT_EQ(out.balance, customer(db, 1, 3, 42)->c_balance);
  // At load every customer has exactly one order (clause 4.3.3.1).
  ASSERT_NE(out.o_id, 0u);
  const auto o = order(db, 1, 3, out.o_id);
  ASSERT_TRUE(o.has_value());
  EXPECT_EQ(o->o_c_id, 42u);
  EXPECT_EQ(out.carrier, o->o_carrier_id);
  EXPECT_EQ(out.lines, o->o_ol_cnt);

  // A new order of the same customer becomes the one shown.
  NewOrderInput no{};
  no.w_id = 1;
  no.d_id = 3;
  no.c_id = 42;
  no.ol_cnt = 5;
  for (u32 i = 0; i < 5; ++i) no.lines[i] = {i + 1, 1, 2};
  ASSERT_TRUE(new_order(db, no));
  OrderStatusOutput after;
  ASSERT_TRUE(order_status(db, OrderStatusInput{1, 3, false, 42, 0}, after));
  EXPECT_EQ(after.o_id, district(db, 1, 3)->d_next_o_id - 1);
  EXPECT_EQ(after.carrier, 0u);
  EXPECT_EQ(after.lines, 5u);
}

TYPED_TEST(TpccFullMix, OrderStatusByLastNameFindsTheMiddleCustomer) {
  auto& db = this->db;
  OrderStatusOutput by_name;
  // Customer ids 1..1000 carry the last names 0..999 at load (clause 4.3.2.3).
  ASSERT_TRUE(order_status(db, OrderStatusInput{1, 2, true, 0, 17}, by_name));
  ASSERT_NE(by_name.c_id, 0u);
  OrderStatusOutput by_id;
  ASSERT_TRUE(order_status(db, OrderStatusInput{1, 2, false, by_name.c_id, 0}, by_id));
  EXPECT_EQ(by_id.o_id, by_name.o_id);
  EXPECT_EQ(by_id.balance, by_name.balance);
}

TYPED_TEST(TpccFullMix, DeliveryDeliversTheOldestOrderOfEveryDistrict) {
  auto& db = this->db;
  std::vector<u32> oldest(kDistrictsPerWarehouse + 1);
  std::vector<Customer> customers_before(kDistrictsPerWarehouse + 1);
  std::vector<Cents> amounts(kDistrictsPerWarehouse + 1);
  for (u32 d = 1; d <= kDistrictsPerWarehouse; ++d) {
    oldest[d] = oldest_new_order(db, 1, d);
    ASSERT_EQ(oldest[d], 2101u) << "orders 2101..3000 are undelivered at load";
    const auto o = order(db, 1, d, oldest[d]);
    customers_before[d] = *customer(db, 1, d, o->o_c_id);
    for (u32 n = 1; n <= o->o_ol_cnt; ++n) amounts[d] += order_line(db, 1, d, oldest[d], n)->ol_amount;
  }
  ASSERT_TRUE(delivery(db, DeliveryInput{1, 7}));
  for (u32 d = 1; d <= kDistrictsPerWarehouse; ++d) {
    SCOPED_TRACE("district " + std::to_string(d));
    EXPECT_EQ(oldest_new_order(db, 1, d), oldest[d] + 1);
    const auto o = order(db, 1, d, oldest[d]);
    EXPECT_EQ(o->o_carrier_id, 7u);
    for (u32 n = 1; n <= o->o_ol_cnt; ++n) EXPECT_NE(order_line(db, 1, d, oldest[d], n)->ol_delivery_d, 0u);
    const auto c = customer(db, 1, d, o->o_c_id);
    EXPECT_EQ(c->c_balance, customers_before[d].c_balance + amounts[d]);
    EXPECT_EQ(c->c_delivery_cnt, customers_before[d].c_delivery_cnt + 1);
  }
  expect_consistent(db);
}

TYPED_TEST(TpccFullMix, DeliverySkipsDistrictsWithNothingToDeliver) {
  auto& db = this->db;
  // 900 undelivered orders per district at load: deliver them all, then once more.
  for (int i = 0; i < 900; ++i) ASSERT_TRUE(delivery(db, DeliveryInput{1, 1 + static_cast<u32>(i % 10)}));
  for (u32 d = 1; d <= kDistrictsPerWarehouse; ++d) EXPECT_EQ(oldest_new_order(db, 1, d), 0u);
  const u64 before = database_hash(db);
  const u64 clock = db.clock;
  ASSERT_TRUE(delivery(db, DeliveryInput{1, 3}));
  db.clock = clock;  // the logical clock moves; nothing stored may
  EXPECT_EQ(database_hash(db), before);
  expect_consistent(db);
}

TYPED_TEST(TpccFullMix, StockLevelCountsDistinctLowStockItemsOfTheLast20Orders) {
  auto& db = this->db;
  const u64 before = database_hash(db);
  // Stock quantities are 10..100 at load: threshold 10 counts none, 101 every
  // distinct item of orders 2981..3000.
  StockLevelOutput none, all;
  ASSERT_TRUE(stock_level(db, StockLevelInput{1, 4, 10}, none));
  ASSERT_TRUE(stock_level(db, StockLevelInput{1, 4, 101}, all));
  std::set<u32> items;
  for (u32 o = 2981; o <= 3000; ++o)
    for (u32 n = 1; n <= order(db, 1, 4, o)->o_ol_cnt; ++n) items.insert(order_line(db, 1, 4, o, n)->ol_i_id);
  EXPECT_EQ(none.low_stock, 0u);
  EXPECT_EQ(all.low_stock, items.size());
  // A middle threshold counts exactly the items below it.
  u32 below50 = 0;
  for (u32 i : items) below50 += stock(db, 1, i)->s_quantity < 50 ? 1 : 0;
  StockLevelOutput middle;
  ASSERT_TRUE(stock_level(db, StockLevelInput{1, 4, 50}, middle));
  EXPECT_EQ(middle.low_stock, below50);
  EXPECT_EQ(database_hash(db), before) << "Stock-Level is read-only";
}

RunConfig spec_mix(const std::string& stack) {
  RunConfig c;
  c.stack = stack;
  c.variant = Variant::kSpec;
  c.mix = {45, 43, 4, 4, 4};
  c.transactions = 3000;
  c.seed = 11;
  return c;
}

class TpccSpecMixRun : public ::testing::TestWithParam<const char*> {};

TEST_P(TpccSpecMixRun, EveryTypeCommitsAndTheDatabaseStaysConsistent) {
  const RunResult r = run(spec_mix(GetParam()));
  ASSERT_EQ(r.consistency.size(), kCheckedConditions.size());
  for (const ConsistencyCheck& c : r.consistency) EXPECT_TRUE(c.passed) << "condition " << c.condition << ": " << c.detail;
  u64 total = 0;
  for (int t = 0; t < kTxnTypeCount; ++t) {
    const TxnStats& s = r.per_type[t];
    EXPECT_GT(s.commits, 0u) << kTxnTypeNames[t];
    total += s.commits + s.aborts;
    if (t != static_cast<int>(TxnType::kNewOrder)) {
      EXPECT_EQ(s.aborts, 0u) << kTxnTypeNames[t];
    }
  }
  EXPECT_EQ(total, 3000u);
  const double no = static_cast<double>(r.per_type[0].commits + r.per_type[0].aborts) / 3000.0;
  EXPECT_NEAR(no, 0.45, 0.03);
}

TEST_P(TpccSpecMixRun, SameSeedSameCountsOnEveryStack) {
  const RunResult a = run(spec_mix(GetParam()));
  const RunResult b = run(spec_mix("bare"));
  for (int t = 0; t < kTxnTypeCount; ++t) {
    EXPECT_EQ(a.per_type[t].commits, b.per_type[t].commits) << kTxnTypeNames[t];
    EXPECT_EQ(a.per_type[t].aborts, b.per_type[t].aborts) << kTxnTypeNames[t];
  }
}

INSTANTIATE_TEST_SUITE_P(Stacks, TpccSpecMixRun, ::testing::Values("bare", "step1", "step10", "optimal"));

}  // namespace
}  // namespace dbrepro::tpcc
