// Tests of the TPC-C transaction inputs (clauses 2.4.1, 2.5.1; paper and spec
// variants) and of New Order and Payment (clauses 2.4.2, 2.5.2): each is run
// directly on a freshly loaded database with a hand-built input, and the rows
// it touches are compared with what the spec prescribes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <stdlib.h>
#include <unistd.h>

#include "kernel/mem_engine.hpp"
#include "stack/engine.hpp"
#include "stack/ladder.hpp"
#include "tpcc/consistency.hpp"
#include "tpcc/database.hpp"
#include "tpcc/inputs.hpp"
#include "tpcc/loader.hpp"
#include "tpcc/transactions.hpp"
#include "tpcc_test_db.hpp"
#include "tpcc_test_engines.hpp"

namespace dbrepro::tpcc {
namespace {

using IntEngine = PagedEngine<IntegerKeyCompare>;
using GenEngine = PagedEngine<GenericKeyCompare>;
using FullEngine = Engine<Step0>;  // every component: log flushed at commit, locks, latches, buffer pool

using namespace test_db;
using test::kHasCatalog;

NewOrderInput new_order_input(u32 w, u32 d, u32 c, std::initializer_list<NewOrderLineInput> lines) {
  NewOrderInput in{};
  in.w_id = w;
  in.d_id = d;
  in.c_id = c;
  in.ol_cnt = static_cast<u32>(lines.size());
  u32 i = 0;
  for (const NewOrderLineInput& l : lines) in.lines[i++] = l;
  return in;
}

PaymentInput payment_by_id(u32 w, u32 d, u32 c_w, u32 c_d, u32 c_id, Cents amount) {
  PaymentInput in{};
  in.w_id = w;
  in.d_id = d;
  in.c_w_id = c_w;
  in.c_d_id = c_d;
  in.by_last_name = false;
  in.c_id = c_id;
  in.amount = amount;
  return in;
}

// The customer with C_CREDIT = credit and the smallest C_ID in (w, d).
template <class Engine>
u32 find_customer_with_credit(Database<Engine>& db, u32 w, u32 d, const char* credit) {
  u32 found = 0;
  in_txn(db, [&] {
    db.customer.scan({w, d, 1}, [&](const Customer::Key& k, const Customer& c) {
      if (k.c_w_id != w || k.c_d_id != d) return false;
      if (std::memcmp(c.c_credit, credit, 2) == 0) {
        found = k.c_id;
        return false;
      }
      return true;
    });
  });
  return found;
}

// ---------------------------------------------------------------------------
// Inputs

constexpr int kDraws = 40000;

NURandConstants run_constants(u64 seed) {
  Random rng(seed);
  const NURandConstants load = NURandConstants::for_load(rng);
  return NURandConstants::for_run(load, rng);
}

TEST(TpccInputs, NewOrderPaper) {
  Random rng(11);
  const NURandConstants c = run_constants(11);
  int invalid = 0;
  for (int n = 0; n < kDraws; ++n) {
    const u32 home = 2;
    const NewOrderInput in = make_new_order_input(rng, Variant::kPaper, 3, home, c);
    ASSERT_EQ(in.w_id, home);
    ASSERT_GE(in.d_id, 1u);
    ASSERT_LE(in.d_id, 10u);
    ASSERT_GE(in.c_id, 1u);
    ASSERT_LE(in.c_id, 3000u);
    ASSERT_EQ(in.ol_cnt, 10u);
    for (u32 i = 0; i < in.ol_cnt; ++i) {
      const NewOrderLineInput& l = in.lines[i];
      ASSERT_EQ(l.supply_w_id, home) << "paper: all items from the home warehouse";
      ASSERT_GE(l.quantity, 1u);
      ASSERT_LE(l.quantity, 10u);
      if (i + 1 < in.ol_cnt) {
        ASSERT_GE(l.i_id, 1u);
        ASSERT_LE(l.i_id, kItems);
      }
    }
    const u32 last = in.lines[in.ol_cnt - 1].i_id;
    if (last == kUnusedItem) {
      ++invalid;
    } else {
      ASSERT_GE(last, 1u);
      ASSERT_LE(last, kItems);
    }
  }
  EXPECT_NEAR(static_cast<double>(invalid) / kDraws, 0.01, 0.004);
}

TEST(TpccInputs, NewOrderSpecOneWarehouse) {
  Random rng(12);
  const NURandConstants c = run_constants(12);
  int rollbacks = 0;
  std::map<u32, int> counts;
  for (int n = 0; n < kDraws; ++n) {
    const NewOrderInput in = make_new_order_input(rng, Variant::kSpec, 1, 1, c);
    ASSERT_GE(in.ol_cnt, 5u);
    ASSERT_LE(in.ol_cnt, 15u);
    ++counts[in.ol_cnt];
    for (u32 i = 0; i < in.ol_cnt; ++i) ASSERT_EQ(in.lines[i].supply_w_id, 1u) << "no remote lines when W = 1";
    if (in.lines[in.ol_cnt - 1].i_id == kUnusedItem) ++rollbacks;
  }
  EXPECT_EQ(counts.size(), 11u);  // every count 5..15 occurs
  for (const auto& [cnt, k] : counts) EXPECT_NEAR(static_cast<double>(k) / kDraws, 1.0 / 11, 0.01) << cnt;
  EXPECT_NEAR(static_cast<double>(rollbacks) / kDraws, 0.01, 0.004);
}

TEST(TpccInputs, NewOrderSpecRemoteLines) {
  Random rng(13);
  const NURandConstants c = run_constants(13);
  const u32 home = 2;
  u64 lines = 0, remote = 0;
  int rollbacks = 0;
  std::map<u32, u64> remote_w;
  for (int n = 0; n < kDraws; ++n) {
    const NewOrderInput in = make_new_order_input(rng, Variant::kSpec, 3, home, c);
    ASSERT_EQ(in.w_id, home);
    for (u32 i = 0; i < in.ol_cnt; ++i) {
      ++lines;
      const u32 sw = in.lines[i].supply_w_id;
      ASSERT_GE(sw, 1u);
      ASSERT_LE(sw, 3u);
      if (sw != home) {
        ++remote;
        ++remote_w[sw];
      }
    }
    if (in.lines[in.ol_cnt - 1].i_id == kUnusedItem) ++rollbacks;
  }
  EXPECT_NEAR(static_cast<double>(remote) / static_cast<double>(lines), 0.01, 0.002);
  // Remote warehouses are the others, chosen uniformly.
  ASSERT_EQ(remote_w.size(), 2u);
  EXPECT_NEAR(static_cast<double>(remote_w[1]) / static_cast<double>(remote), 0.5, 0.05);
  EXPECT_NEAR(static_cast<double>(rollbacks) / kDraws, 0.01, 0.004);
}

TEST(TpccInputs, PaymentPaper) {
  Random rng(14);
  const NURandConstants c = run_constants(14);
  for (int n = 0; n < kDraws; ++n) {
    const PaymentInput in = make_payment_input(rng, Variant::kPaper, 5, 4, c);
    ASSERT_EQ(in.w_id, 4u);
    ASSERT_EQ(in.c_w_id, 4u) << "paper: customer of the home warehouse";
    ASSERT_EQ(in.c_d_id, in.d_id);
    ASSERT_GE(in.d_id, 1u);
    ASSERT_LE(in.d_id, 10u);
    ASSERT_FALSE(in.by_last_name) << "paper: customer by id";
    ASSERT_GE(in.c_id, 1u);
    ASSERT_LE(in.c_id, 3000u);
    ASSERT_GE(in.amount, 100);
    ASSERT_LE(in.amount, 500000);
  }
}

TEST(TpccInputs, PaymentSpec) {
  Random rng(15);
  const NURandConstants c = run_constants(15);
  int remote = 0, by_name = 0, by_name_w1 = 0;
  for (int n = 0; n < kDraws; ++n) {
    const PaymentInput in = make_payment_input(rng, Variant::kSpec, 3, 1, c);
    ASSERT_EQ(in.w_id, 1u);
    ASSERT_GE(in.c_w_id, 1u);
    ASSERT_LE(in.c_w_id, 3u);
    ASSERT_GE(in.c_d_id, 1u);
    ASSERT_LE(in.c_d_id, 10u);
    if (in.c_w_id != in.w_id) ++remote;
    else ASSERT_EQ(in.c_d_id, in.d_id) << "a home customer is in the paying district";
    if (in.by_last_name) {
      ++by_name;
      ASSERT_LE(in.c_last_number, 999u);
    } else {
      ASSERT_GE(in.c_id, 1u);
      ASSERT_LE(in.c_id, 3000u);
    }
    ASSERT_GE(in.amount, 100);
    ASSERT_LE(in.amount, 500000);

    const PaymentInput one = make_payment_input(rng, Variant::kSpec, 1, 1, c);
    ASSERT_EQ(one.c_w_id, 1u) << "no remote customers when W = 1";
    ASSERT_EQ(one.c_d_id, one.d_id);
    if (one.by_last_name) ++by_name_w1;
  }
  EXPECT_NEAR(static_cast<double>(remote) / kDraws, 0.15, 0.015);
  EXPECT_NEAR(static_cast<double>(by_name) / kDraws, 0.60, 0.02);
  EXPECT_NEAR(static_cast<double>(by_name_w1) / kDraws, 0.60, 0.02);
}

TEST(TpccInputs, SameSeedSameStream) {
  const NURandConstants c = run_constants(16);
  Random a(16), b(16);
  for (int n = 0; n < 1000; ++n) {
    const NewOrderInput x = make_new_order_input(a, Variant::kSpec, 4, 3, c);
    const NewOrderInput y = make_new_order_input(b, Variant::kSpec, 4, 3, c);
    ASSERT_EQ(std::memcmp(&x, &y, sizeof(x)), 0);
    const PaymentInput p = make_payment_input(a, Variant::kSpec, 4, 3, c);
    const PaymentInput q = make_payment_input(b, Variant::kSpec, 4, 3, c);
    ASSERT_EQ(std::memcmp(&p, &q, sizeof(p)), 0);
  }
}

// ---------------------------------------------------------------------------
// New Order and Payment on both key-compare stacks of the bare engine, on the
// full stack (E1's step 0) and on the optimal kernel: the same code must have
// the same effects on each.

template <class Engine>
class TpccTransactions : public ::testing::Test {};
using Engines = ::testing::Types<IntEngine, GenEngine, FullEngine, MemEngine>;
class EngineNames {
 public:
  template <class T>
  static std::string GetName(int) {
    if constexpr (std::is_same_v<T, IntEngine>) return "bare_integer";
    if constexpr (std::is_same_v<T, GenEngine>) return "bare_generic";
    if constexpr (std::is_same_v<T, FullEngine>) return "step0";
    return "optimal";
  }
};
TYPED_TEST_SUITE(TpccTransactions, Engines, EngineNames);

TYPED_TEST(TpccTransactions, NewOrderEffects) {
  Loaded<TypeParam> loaded(1, 21);
  auto& db = loaded.db;
  const u32 w = 1, d = 3, c = 42;

  // Stock quantities chosen to hit both branches of clause 2.4.2.2's rule and
  // its boundary (S_QUANTITY = OL_QUANTITY + 10 subtracts).
  struct Line {
    u32 i_id, qty;
    i32 start, expected;
  };
  const Line lines[] = {{1, 5, 50, 45}, {500, 10, 20, 10}, {77777, 10, 19, 100}, {100000, 1, 10, 100},
                        {12345, 7, 17, 10}};
  std::vector<Stock> stock_before;
  std::vector<Cents> prices;
  for (const Line& l : lines) {
    bool updated = false;
    in_txn(db, [&] { updated = db.stock.update1({w, l.i_id}, [&](Stock& s) { s.s_quantity = l.start; }); });
    ASSERT_TRUE(updated);
    stock_before.push_back(*stock(db, w, l.i_id));
    prices.push_back(item(db, l.i_id)->i_price);
  }
  const District district_before = *district(db, w, d);
  const Warehouse warehouse_before = *warehouse(db, w);
  const Customer customer_before = *customer(db, w, d, c);
  const std::vector<u64> sizes_before = table_sizes(db);
  const u64 clock_before = db.clock;

  NewOrderInput in{};
  in.w_id = w;
  in.d_id = d;
  in.c_id = c;
  in.ol_cnt = 5;
  for (u32 i = 0; i < 5; ++i) in.lines[i] = {lines[i].i_id, w, lines[i].qty};
  ASSERT_TRUE(new_order(db, in));

  // DISTRICT: D_NEXT_O_ID + 1, nothing else.
  District district_expected = district_before;
  district_expected.d_next_o_id += 1;
  EXPECT_TRUE(same_bytes(*district(db, w, d), district_expected));
  EXPECT_EQ(district(db, w, d)->d_next_o_id, 3002u);
  EXPECT_EQ(district(db, w, d + 1)->d_next_o_id, 3001u);
  EXPECT_TRUE(same_bytes(*warehouse(db, w), warehouse_before));
  EXPECT_TRUE(same_bytes(*customer(db, w, d, c), customer_before));

  // ORDER, NEW-ORDER, the customer index.
  const u32 o_id = 3001;
  const std::optional<Order> o = order(db, w, d, o_id);
  ASSERT_TRUE(o.has_value());
  EXPECT_EQ(o->o_id, o_id);
  EXPECT_EQ(o->o_d_id, d);
  EXPECT_EQ(o->o_w_id, w);
  EXPECT_EQ(o->o_c_id, c);
  EXPECT_EQ(o->o_carrier_id, 0u);
  EXPECT_EQ(o->o_ol_cnt, 5u);
  EXPECT_EQ(o->o_all_local, 1u);
  EXPECT_GE(o->o_entry_d, clock_before);
  EXPECT_GT(db.clock, clock_before);
  bool in_new_order = false;
  in_txn(db, [&] {
    db.new_order.lookup1({w, d, o_id}, [&](const NewOrder& r) {
      in_new_order = r.no_o_id == o_id && r.no_d_id == d && r.no_w_id == w;
    });
  });
  EXPECT_TRUE(in_new_order);
  EXPECT_TRUE(has_order_by_customer(db, w, d, c, o_id));

  // ORDER-LINE: exactly ol_cnt lines, amount = quantity * price.
  for (u32 i = 0; i < 5; ++i) {
    SCOPED_TRACE("line " + std::to_string(i + 1));
    const std::optional<OrderLine> ol = order_line(db, w, d, o_id, i + 1);
    ASSERT_TRUE(ol.has_value());
    EXPECT_EQ(ol->ol_o_id, o_id);
    EXPECT_EQ(ol->ol_d_id, d);
    EXPECT_EQ(ol->ol_w_id, w);
    EXPECT_EQ(ol->ol_number, i + 1);
    EXPECT_EQ(ol->ol_i_id, lines[i].i_id);
    EXPECT_EQ(ol->ol_supply_w_id, w);
    EXPECT_EQ(ol->ol_quantity, lines[i].qty);
    EXPECT_EQ(ol->ol_amount, static_cast<Cents>(lines[i].qty) * prices[i]);
    EXPECT_EQ(ol->ol_delivery_d, 0u);
    EXPECT_EQ(std::memcmp(ol->ol_dist_info, stock_before[i].s_dist[d - 1], 24), 0) << "OL_DIST_INFO = S_DIST_03";

    // STOCK.
    const Stock s = *stock(db, w, lines[i].i_id);
    EXPECT_EQ(s.s_quantity, lines[i].expected);
    EXPECT_EQ(s.s_ytd, stock_before[i].s_ytd + lines[i].qty);
    EXPECT_EQ(s.s_order_cnt, stock_before[i].s_order_cnt + 1);
    EXPECT_EQ(s.s_remote_cnt, stock_before[i].s_remote_cnt);
    EXPECT_EQ(std::memcmp(s.s_data, stock_before[i].s_data, sizeof(s.s_data)), 0);
  }
  EXPECT_FALSE(order_line(db, w, d, o_id, 6).has_value());

  // Row counts: +1 ORDER, NEW-ORDER, index entry; +5 ORDER-LINE; nothing else.
  std::vector<u64> sizes_expected = sizes_before;
  sizes_expected[5] += 1;  // new_order
  sizes_expected[6] += 1;  // order
  sizes_expected[7] += 1;  // order_by_customer
  sizes_expected[8] += 5;  // order_line
  EXPECT_EQ(table_sizes(db), sizes_expected);

  expect_consistent(db);

  // The next order of the district gets the next id; another district's its own.
  ASSERT_TRUE(new_order(db, new_order_input(w, d, 7, {{2, w, 1}, {3, w, 2}, {4, w, 3}})));
  EXPECT_TRUE(order(db, w, d, 3002).has_value());
  EXPECT_EQ(order(db, w, d, 3002)->o_c_id, 7u);
  EXPECT_TRUE(has_order_by_customer(db, w, d, 7, 3002));
  ASSERT_TRUE(new_order(db, new_order_input(w, 9, 7, {{2, w, 1}, {3, w, 2}, {4, w, 3}, {5, w, 4}, {6, w, 5},
                                                      {7, w, 6}, {8, w, 7}, {9, w, 8}, {10, w, 9}, {11, w, 10},
                                                      {12, w, 1}, {13, w, 2}, {14, w, 3}, {15, w, 4}, {16, w, 5}})));
  EXPECT_EQ(order(db, w, 9, 3001)->o_ol_cnt, 15u);
  EXPECT_TRUE(order_line(db, w, 9, 3001, 15).has_value());
  EXPECT_FALSE(order_line(db, w, 9, 3001, 16).has_value());
  EXPECT_EQ(district(db, w, d)->d_next_o_id, 3003u);
  EXPECT_EQ(district(db, w, 9)->d_next_o_id, 3002u);
  expect_consistent(db);
}

TYPED_TEST(TpccTransactions, NewOrderWithInvalidItemChangesNothing) {
  Loaded<TypeParam> loaded(1, 22);
  auto& db = loaded.db;
  const u64 hash_before = database_hash(db);
  const std::vector<u64> sizes_before = table_sizes(db);
  const District district_before = *district(db, 1, 5);

  // The 1% case of the workload: the last item is unused...
  ASSERT_FALSE(new_order(db, new_order_input(1, 5, 10, {{1, 1, 3}, {2, 1, 3}, {3, 1, 3}, {kUnusedItem, 1, 3}})));
  EXPECT_TRUE(same_bytes(*district(db, 1, 5), district_before));
  EXPECT_EQ(table_sizes(db), sizes_before);
  EXPECT_EQ(database_hash(db), hash_before);

  // ...and an unused item anywhere else aborts just the same.
  ASSERT_FALSE(new_order(db, new_order_input(1, 5, 10, {{kUnusedItem, 1, 3}, {2, 1, 3}})));
  ASSERT_FALSE(new_order(db, new_order_input(1, 5, 10, {{2, 1, 3}, {0, 1, 3}, {4, 1, 3}})));
  EXPECT_EQ(table_sizes(db), sizes_before);
  EXPECT_EQ(database_hash(db), hash_before);

  // The district's next order id was not consumed.
  ASSERT_TRUE(new_order(db, new_order_input(1, 5, 10, {{1, 1, 3}})));
  EXPECT_TRUE(order(db, 1, 5, 3001).has_value());
  expect_consistent(db);
}

TYPED_TEST(TpccTransactions, PaymentByIdGoodCredit) {
  Loaded<TypeParam> loaded(1, 23);
  auto& db = loaded.db;
  const u32 w = 1, d = 4;
  const u32 c = find_customer_with_credit(db, w, d, "GC");
  ASSERT_NE(c, 0u);
  const Warehouse w_before = *warehouse(db, w);
  const District d_before = *district(db, w, d);
  const District other_d_before = *district(db, w, d + 1);
  const Customer c_before = *customer(db, w, d, c);
  const Customer neighbour_before = *customer(db, w, d, c + 1);
  const std::vector<u64> sizes_before = table_sizes(db);
  const Cents amount = 123456;

  ASSERT_TRUE(payment(db, payment_by_id(w, d, w, d, c, amount)));

  Warehouse w_expected = w_before;
  w_expected.w_ytd += amount;
  EXPECT_TRUE(same_bytes(*warehouse(db, w), w_expected));
  EXPECT_EQ(warehouse(db, w)->w_ytd, 30000000 + amount);
  District d_expected = d_before;
  d_expected.d_ytd += amount;
  EXPECT_TRUE(same_bytes(*district(db, w, d), d_expected));
  EXPECT_EQ(district(db, w, d)->d_ytd, 3000000 + amount);
  EXPECT_TRUE(same_bytes(*district(db, w, d + 1), other_d_before));

  Customer c_expected = c_before;
  c_expected.c_balance -= amount;
  c_expected.c_ytd_payment += amount;
  c_expected.c_payment_cnt += 1;
  const Customer c_after = *customer(db, w, d, c);
  EXPECT_TRUE(same_bytes(c_after, c_expected)) << "good credit: only balance, ytd and count change";
  EXPECT_EQ(c_after.c_balance, -1000 - amount);
  EXPECT_EQ(c_after.c_ytd_payment, 1000 + amount);
  EXPECT_EQ(c_after.c_payment_cnt, 2u);
  EXPECT_TRUE(same_bytes(*customer(db, w, d, c + 1), neighbour_before));

  std::vector<u64> sizes_expected = sizes_before;
  sizes_expected[4] += 1;  // history
  EXPECT_EQ(table_sizes(db), sizes_expected);
  expect_consistent(db);
  if constexpr (kHasCatalog<TypeParam>) {  // HISTORY rows are not readable in the optimal kernel
    const std::vector<History> history = history_rows(db);
    ASSERT_EQ(history.size(), 30001u);
    const History& h = history.back();
    EXPECT_EQ(h.h_c_id, c);
    EXPECT_EQ(h.h_c_d_id, d);
    EXPECT_EQ(h.h_c_w_id, w);
    EXPECT_EQ(h.h_d_id, d);
    EXPECT_EQ(h.h_w_id, w);
    EXPECT_EQ(h.h_amount, amount);
    EXPECT_GE(h.h_date, 1u);
    // H_DATA: W_NAME, four spaces, D_NAME.
    const std::string_view w_name = str(w_before.w_name), d_name = str(d_before.d_name);
    const std::string_view h_data(h.h_data, sizeof(h.h_data));
    EXPECT_EQ(h_data.substr(0, w_name.size()), w_name);
    EXPECT_EQ(h_data.substr(w_name.size(), 4), "    ");
    EXPECT_EQ(h_data.substr(w_name.size() + 4, d_name.size()), d_name);
  }
}

TYPED_TEST(TpccTransactions, PaymentByIdBadCreditPrependsToCData) {
  Loaded<TypeParam> loaded(1, 24);
  auto& db = loaded.db;
  const u32 w = 1, d = 6;
  const u32 c = find_customer_with_credit(db, w, d, "BC");
  ASSERT_NE(c, 0u);

  // Short C_DATA (300 chars): the entry is prepended, the old data kept whole.
  std::string old_data(300, 'q');
  in_txn(db, [&] {
    db.customer.update1({w, d, c}, [&](Customer& row) {
      std::memset(row.c_data, 0, sizeof(row.c_data));
      std::memcpy(row.c_data, old_data.data(), old_data.size());
    });
  });
  const Customer before = *customer(db, w, d, c);
  ASSERT_TRUE(payment(db, payment_by_id(w, d, w, d, c, 100007)));  // 1000.07
  Customer after = *customer(db, w, d, c);
  const std::string entry = std::to_string(c) + " 6 1 6 1 1000.07|";
  std::string expected = entry + old_data;
  EXPECT_EQ(str(after.c_data), expected);
  EXPECT_EQ(after.c_balance, before.c_balance - 100007);
  EXPECT_EQ(after.c_ytd_payment, before.c_ytd_payment + 100007);
  EXPECT_EQ(after.c_payment_cnt, before.c_payment_cnt + 1);
  EXPECT_EQ(std::string_view(after.c_credit, 2), "BC");

  // Full C_DATA (500 chars): it stays 500 chars, the oldest ones fall off.
  old_data.assign(500, 'x');
  in_txn(db, [&] { db.customer.update1({w, d, c}, [&](Customer& row) { std::memcpy(row.c_data, old_data.data(), 500); }); });
  ASSERT_TRUE(payment(db, payment_by_id(w, d, w, d, c, 500000)));  // 5000.00
  after = *customer(db, w, d, c);
  const std::string entry2 = std::to_string(c) + " 6 1 6 1 5000.00|";
  expected = (entry2 + old_data).substr(0, 500);
  EXPECT_EQ(strnlen(after.c_data, sizeof(after.c_data)), 500u);
  EXPECT_EQ(std::string_view(after.c_data, 500), expected);

  // A small amount keeps its leading zero in the cents.
  ASSERT_TRUE(payment(db, payment_by_id(w, d, w, d, c, 101)));  // 1.01
  after = *customer(db, w, d, c);
  const std::string entry3 = std::to_string(c) + " 6 1 6 1 1.01|";
  EXPECT_EQ(std::string_view(after.c_data, entry3.size()), entry3);
  EXPECT_EQ(strnlen(after.c_data, sizeof(after.c_data)), 500u);
  expect_consistent(db);
}

TYPED_TEST(TpccTransactions, CustomerByLastNameMatchesBruteForce) {
  Loaded<TypeParam> loaded(1, 25);
  auto& db = loaded.db;
  const u32 w = 1;
  size_t checked = 0, groups_of_two_or_more = 0, largest = 0;
  for (u32 d : {1u, 5u, 10u}) {
    // Brute force: every customer of the district, grouped by C_LAST.
    struct Candidate {
      std::string first;
      u32 c_id;
    };
    std::map<u32, std::vector<Candidate>> by_number;
    in_txn(db, [&] {
      db.customer.scan({w, d, 0}, [&](const Customer::Key& k, const Customer& c) {
        if (k.c_w_id != w || k.c_d_id != d) return false;
        by_number[c.c_last_number].push_back({std::string(str(c.c_first)), k.c_id});
        return true;
      });
    });
    ASSERT_EQ(by_number.size(), 1000u);
    std::map<u32, u32> chosen_by_number;  // one transaction for all the district's names
    in_txn(db, [&] {
      for (const auto& entry : by_number) chosen_by_number[entry.first] = customer_by_last_name(db, w, d, entry.first);
    });
    for (auto& [number, group] : by_number) {
      std::sort(group.begin(), group.end(), [](const Candidate& a, const Candidate& b) { return a.first < b.first; });
      bool ties = false;
      for (size_t i = 1; i < group.size(); ++i) ties |= group[i].first == group[i - 1].first;
      if (ties) continue;  // the order among equal C_FIRST is unspecified
      // Position ceil(n/2), one-based.
      const size_t n = group.size();
      const u32 expected = group[(n + 1) / 2 - 1].c_id;
      ASSERT_EQ(chosen_by_number[number], expected) << "d " << d << " C_LAST number " << number
                                                                   << " with " << n << " customers";
      ++checked;
      if (n >= 2) ++groups_of_two_or_more;
      largest = std::max(largest, n);
    }
  }
  EXPECT_GE(checked, 2900u);
  EXPECT_GE(groups_of_two_or_more, 100u);  // the selection rule really is exercised
  EXPECT_GE(largest, 4u);
}

TYPED_TEST(TpccTransactions, PaymentByLastName) {
  Loaded<TypeParam> loaded(1, 26);
  auto& db = loaded.db;
  const u32 w = 1, d = 2;
  // The C_LAST with the most customers in the district.
  std::map<u32, std::vector<std::pair<std::string, u32>>> by_number;
  in_txn(db, [&] {
    db.customer.scan({w, d, 0}, [&](const Customer::Key& k, const Customer& c) {
      if (k.c_w_id != w || k.c_d_id != d) return false;
      by_number[c.c_last_number].push_back({std::string(str(c.c_first)), k.c_id});
      return true;
    });
  });
  u32 number = 0;
  for (const auto& [n, group] : by_number)
    if (group.size() > by_number[number].size()) number = n;
  auto group = by_number[number];
  ASSERT_GE(group.size(), 3u);
  std::sort(group.begin(), group.end());
  const u32 chosen = group[(group.size() + 1) / 2 - 1].second;

  std::map<u32, Customer> before;
  for (const auto& [first, c_id] : group) before[c_id] = *customer(db, w, d, c_id);

  PaymentInput in{};
  in.w_id = w;
  in.d_id = d;
  in.c_w_id = w;
  in.c_d_id = d;
  in.by_last_name = true;
  in.c_last_number = number;
  in.amount = 4242;
  ASSERT_TRUE(payment(db, in));
  for (const auto& [c_id, row] : before) {
    const Customer after = *customer(db, w, d, c_id);
    if (c_id == chosen) {
      EXPECT_EQ(after.c_balance, row.c_balance - 4242);
      EXPECT_EQ(after.c_payment_cnt, row.c_payment_cnt + 1);
    } else {
      EXPECT_TRUE(same_bytes(after, row)) << "customer " << c_id << " of the same name was changed";
    }
  }
  if constexpr (kHasCatalog<TypeParam>) { EXPECT_EQ(history_rows(db).back().h_c_id, chosen); }
  EXPECT_EQ(warehouse(db, w)->w_ytd, 30000000 + 4242);
  expect_consistent(db);
}

// ---------------------------------------------------------------------------
// Cases that need two warehouses, or that mutate an index: integer keys only
// (the typed tests above already cover both key compares).

TEST(TpccTransactionsTwoWarehouses, NewOrderRemoteLine) {
  Loaded<IntEngine> loaded(2, 31);
  auto& db = loaded.db;
  const u32 home = 1, remote = 2, d = 8, c = 77;
  const u32 local_item = 4321, remote_item = 9876;
  const Stock local_before = *stock(db, home, local_item);
  const Stock remote_before = *stock(db, remote, remote_item);
  const Stock home_copy_before = *stock(db, home, remote_item);  // same item, home warehouse
  const Stock remote_copy_before = *stock(db, remote, local_item);

  ASSERT_TRUE(new_order(db, new_order_input(home, d, c, {{local_item, home, 4}, {remote_item, remote, 6}})));
  const Order o = *order(db, home, d, 3001);
  EXPECT_EQ(o.o_all_local, 0u);
  EXPECT_EQ(o.o_ol_cnt, 2u);
  const OrderLine l1 = *order_line(db, home, d, 3001, 1);
  const OrderLine l2 = *order_line(db, home, d, 3001, 2);
  EXPECT_EQ(l1.ol_supply_w_id, home);
  EXPECT_EQ(l2.ol_supply_w_id, remote);
  EXPECT_EQ(l2.ol_w_id, home);
  EXPECT_EQ(std::memcmp(l2.ol_dist_info, remote_before.s_dist[d - 1], 24), 0) << "dist info of the supplying stock";

  const Stock local_after = *stock(db, home, local_item);
  EXPECT_EQ(local_after.s_remote_cnt, local_before.s_remote_cnt);
  EXPECT_EQ(local_after.s_order_cnt, local_before.s_order_cnt + 1);
  EXPECT_EQ(local_after.s_ytd, local_before.s_ytd + 4);
  const Stock remote_after = *stock(db, remote, remote_item);
  EXPECT_EQ(remote_after.s_remote_cnt, remote_before.s_remote_cnt + 1);
  EXPECT_EQ(remote_after.s_order_cnt, remote_before.s_order_cnt + 1);
  EXPECT_EQ(remote_after.s_ytd, remote_before.s_ytd + 6);
  // The other warehouses' copies of those items are untouched.
  EXPECT_TRUE(same_bytes(*stock(db, home, remote_item), home_copy_before));
  EXPECT_TRUE(same_bytes(*stock(db, remote, local_item), remote_copy_before));
  // Only the home warehouse's district advances.
  EXPECT_EQ(district(db, remote, d)->d_next_o_id, 3001u);
  EXPECT_FALSE(order(db, remote, d, 3001).has_value());
  expect_consistent(db);
}

TEST(TpccTransactionsTwoWarehouses, PaymentRemoteCustomer) {
  Loaded<IntEngine> loaded(2, 32);
  auto& db = loaded.db;
  const Warehouse w1 = *warehouse(db, 1), w2 = *warehouse(db, 2);
  const District d12 = *district(db, 1, 2), d27 = *district(db, 2, 7);
  const Customer remote_c = *customer(db, 2, 7, 55), home_c = *customer(db, 1, 2, 55);

  ASSERT_TRUE(payment(db, payment_by_id(1, 2, 2, 7, 55, 9999)));
  EXPECT_EQ(warehouse(db, 1)->w_ytd, w1.w_ytd + 9999);
  EXPECT_TRUE(same_bytes(*warehouse(db, 2), w2));
  EXPECT_EQ(district(db, 1, 2)->d_ytd, d12.d_ytd + 9999);
  EXPECT_TRUE(same_bytes(*district(db, 2, 7), d27));
  EXPECT_EQ(customer(db, 2, 7, 55)->c_balance, remote_c.c_balance - 9999);
  EXPECT_EQ(customer(db, 2, 7, 55)->c_payment_cnt, remote_c.c_payment_cnt + 1);
  EXPECT_TRUE(same_bytes(*customer(db, 1, 2, 55), home_c));
  const History h = history_rows(db).back();
  EXPECT_EQ(h.h_c_id, 55u);
  EXPECT_EQ(h.h_c_w_id, 2u);
  EXPECT_EQ(h.h_c_d_id, 7u);
  EXPECT_EQ(h.h_w_id, 1u);
  EXPECT_EQ(h.h_d_id, 2u);
  if (remote_c.c_credit[0] == 'B') {
    const std::string entry = "55 7 2 2 1 99.99|";
    EXPECT_EQ(std::string_view(customer(db, 2, 7, 55)->c_data, entry.size()), entry);
  }
  expect_consistent(db);
}

TEST(TpccTransactionsAbort, PaymentByUnknownLastNameChangesNothing) {
  Loaded<IntEngine> loaded(1, 33);
  auto& db = loaded.db;
  // Remove every index entry of one C_LAST in district 3.
  const u32 number = 371;
  std::vector<CustomerByName::Key> keys;
  db.customer_by_name.scan({1, 3, number, 0}, [&](const CustomerByName::Key& k) {
    if (k.c_w_id != 1 || k.c_d_id != 3 || k.c_last_number != number) return false;
    keys.push_back(k);
    return true;
  });
  ASSERT_FALSE(keys.empty());
  for (const auto& k : keys) ASSERT_TRUE(db.customer_by_name.erase(k));
  EXPECT_EQ(customer_by_last_name(db, 1, 3, number), 0u);

  const u64 hash_before = database_hash(db);
  PaymentInput in{};
  in.w_id = 1;
  in.d_id = 3;
  in.c_w_id = 1;
  in.c_d_id = 3;
  in.by_last_name = true;
  in.c_last_number = number;
  in.amount = 1000;
  EXPECT_FALSE(payment(db, in));
  EXPECT_EQ(database_hash(db), hash_before);
}

// ---------------------------------------------------------------------------
// The storage adapter hands the transactions references to rows stored in
// pages: they must be properly aligned for the row type (anything else is
// undefined behaviour, which optimisers and sanitizers are entitled to act on).

template <class Row>
bool aligned(const Row& r) {
  return reinterpret_cast<std::uintptr_t>(&r) % alignof(Row) == 0;
}

TEST(TpccStorageAdapter, RowsAreAlignedForEveryAllowedPageSize) {
  for (u32 page_size : {1024u, 2048u, 4096u, 8192u, 16384u, 32768u, 65536u}) {
    SCOPED_TRACE("page_size " + std::to_string(page_size));
    IntEngine engine(page_size);
    Database<IntEngine> db(engine);
    u64 misaligned = 0;
    for (u32 c = 1; c <= 200; ++c) {
      Customer row{};
      row.c_id = c;
      ASSERT_TRUE(db.customer.insert({1, 1, c}, row));
      Stock s{};
      s.s_i_id = c;
      ASSERT_TRUE(db.stock.insert({1, c}, s));
      Order o{};
      o.o_id = c;
      ASSERT_TRUE(db.order.insert({1, 1, c}, o));
    }
    for (u32 c = 1; c <= 200; ++c) {
      db.customer.lookup1({1, 1, c}, [&](const Customer& r) { misaligned += !aligned(r); });
      db.stock.lookup1({1, c}, [&](const Stock& r) { misaligned += !aligned(r); });
      db.order.update1({1, 1, c}, [&](Order& r) { misaligned += !aligned(r); });
    }
    EXPECT_EQ(misaligned, 0u) << "rows at misaligned addresses";
  }
}

}  // namespace
}  // namespace dbrepro::tpcc
