// Tests of the TPC-C population (clause 4.3.3.1) and its value generators:
// row counts per table, the initial values the consistency conditions and the
// transactions rely on, the randomly generated strings and their ranges, the
// C_LAST syllables and NURand constants (clause 2.1.6), and determinism: the
// same seed must give the same database on every engine stack.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include <stdlib.h>
#include <unistd.h>

#include "kernel/mem_engine.hpp"
#include "stack/engine.hpp"
#include "stack/ladder.hpp"
#include "tpcc/consistency.hpp"
#include "tpcc/database.hpp"
#include "tpcc/generators.hpp"
#include "tpcc/loader.hpp"
#include "tpcc_test_engines.hpp"

namespace dbrepro::tpcc {
namespace {

using IntEngine = PagedEngine<IntegerKeyCompare>;
using GenEngine = PagedEngine<GenericKeyCompare>;

using test::kHasCatalog;
using test::make_engine;
using test::TempLog;

// One engine with one loaded TPC-C database (engines are not movable).
template <class Engine>
struct Loaded {
  Loaded(u32 warehouses, u64 seed, u32 page_size = 8192)
      : engine(make_engine<Engine>(page_size, log.path)), db(engine) {
    Random rng(seed);
    constants = NURandConstants::for_load(rng);
    load(db, warehouses, rng, constants);
  }
  TempLog log;
  Engine engine;
  Database<Engine> db;
  NURandConstants constants;
};

template <size_t N>
std::string_view str(const char (&a)[N]) {
  return {a, strnlen(a, N)};
}

bool is_alnum(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
  });
}
bool is_digits(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// A field-by-field hash: independent of struct padding, so that databases
// built in different engines (or with different page sizes) compare equal
// exactly when their logical contents are equal.
struct Fnv {
  u64 h = 1469598103934665603ull;
  template <class T>
  Fnv& add(const T& v) {
    const auto* p = reinterpret_cast<const unsigned char*>(&v);
    for (size_t i = 0; i < sizeof(T); ++i) {
      h ^= p[i];
      h *= 1099511628211ull;
    }
    return *this;
  }
};

// with_history: include HISTORY (read from its heap; not possible in the
// optimal kernel, which has no catalog).
template <class Engine>
u64 logical_checksum(Database<Engine>& db, bool with_history = true) {
  Fnv f;
  db.engine.begin();  // a stack with locks or a log reads in a transaction
  db.warehouse.scan({0}, [&](const Warehouse::Key& k, const Warehouse& r) {
    f.add(k.w_id).add(r.w_id).add(r.w_name).add(r.w_street_1).add(r.w_street_2).add(r.w_city).add(r.w_state)
        .add(r.w_zip).add(r.w_tax).add(r.w_ytd);
    return true;
  });
  db.district.scan({0, 0}, [&](const District::Key& k, const District& r) {
    f.add(k.d_w_id).add(k.d_id).add(r.d_id).add(r.d_w_id).add(r.d_name).add(r.d_street_1).add(r.d_street_2)
        .add(r.d_city).add(r.d_state).add(r.d_zip).add(r.d_tax).add(r.d_ytd).add(r.d_next_o_id);
    return true;
  });
  db.customer.scan({0, 0, 0}, [&](const Customer::Key& k, const Customer& r) {
    f.add(k.c_w_id).add(k.c_d_id).add(k.c_id).add(r.c_id).add(r.c_d_id).add(r.c_w_id).add(r.c_last_number)
        .add(r.c_first).add(r.c_middle).add(r.c_last).add(r.c_street_1).add(r.c_street_2).add(r.c_city)
        .add(r.c_state).add(r.c_zip).add(r.c_phone).add(r.c_since).add(r.c_credit).add(r.c_credit_lim)
        .add(r.c_discount).add(r.c_balance).add(r.c_ytd_payment).add(r.c_payment_cnt).add(r.c_delivery_cnt)
        .add(r.c_data);
    return true;
  });
  db.customer_by_name.scan({0, 0, 0, 0}, [&](const CustomerByName::Key& k) {
    f.add(k.c_w_id).add(k.c_d_id).add(k.c_last_number).add(k.c_id);
    return true;
  });
  db.new_order.scan({0, 0, 0}, [&](const NewOrder::Key& k, const NewOrder& r) {
    f.add(k.no_w_id).add(k.no_d_id).add(k.no_o_id).add(r.no_o_id).add(r.no_d_id).add(r.no_w_id);
    return true;
  });
  db.order.scan({0, 0, 0}, [&](const Order::Key& k, const Order& r) {
    f.add(k.o_w_id).add(k.o_d_id).add(k.o_id).add(r.o_id).add(r.o_d_id).add(r.o_w_id).add(r.o_c_id)
        .add(r.o_entry_d).add(r.o_carrier_id).add(r.o_ol_cnt).add(r.o_all_local);
    return true;
  });
  db.order_by_customer.scan({0, 0, 0, 0}, [&](const OrderByCustomer::Key& k) {
    f.add(k.o_w_id).add(k.o_d_id).add(k.o_c_id).add(k.o_id);
    return true;
  });
  db.order_line.scan({0, 0, 0, 0}, [&](const OrderLine::Key& k, const OrderLine& r) {
    f.add(k.ol_w_id).add(k.ol_d_id).add(k.ol_o_id).add(k.ol_number).add(r.ol_o_id).add(r.ol_d_id).add(r.ol_w_id)
        .add(r.ol_number).add(r.ol_i_id).add(r.ol_supply_w_id).add(r.ol_delivery_d).add(r.ol_quantity)
        .add(r.ol_amount).add(r.ol_dist_info);
    return true;
  });
  db.item.scan({0}, [&](const Item::Key& k, const Item& r) {
    f.add(k.i_id).add(r.i_id).add(r.i_im_id).add(r.i_name).add(r.i_price).add(r.i_data);
    return true;
  });
  db.stock.scan({0, 0}, [&](const Stock::Key& k, const Stock& r) {
    f.add(k.s_w_id).add(k.s_i_id).add(r.s_i_id).add(r.s_w_id).add(r.s_quantity).add(r.s_dist).add(r.s_ytd)
        .add(r.s_order_cnt).add(r.s_remote_cnt).add(r.s_data);
    return true;
  });
  db.engine.commit();
  // HISTORY has no index: read its heap in creation order.
  if constexpr (kHasCatalog<Engine>) {
    if (with_history) {
      db.engine.catalog().lookup(History::kName).heap->for_each([&](RecordId, const std::byte* bytes) {
        History r;
        std::memcpy(&r, bytes, sizeof(r));
        f.add(r.h_c_id).add(r.h_c_d_id).add(r.h_c_w_id).add(r.h_d_id).add(r.h_w_id).add(r.h_date).add(r.h_amount)
            .add(r.h_data);
      });
    }
  }
  return f.h;
}

template <class Engine>
std::vector<History> history_rows(Database<Engine>& db) {
  std::vector<History> rows;
  db.engine.catalog().lookup(History::kName).heap->for_each([&](RecordId, const std::byte* bytes) {
    History r;
    std::memcpy(&r, bytes, sizeof(r));
    rows.push_back(r);
  });
  return rows;
}

// ---------------------------------------------------------------------------
// Generators

TEST(TpccGenerators, MakeLastNameSyllables) {
  char out[16];
  EXPECT_EQ(make_last_name(0, out), 9u);
  EXPECT_EQ(str(out), "BARBARBAR");
  EXPECT_EQ(make_last_name(371, out), 13u);
  EXPECT_EQ(str(out), "PRICALLYOUGHT");
  EXPECT_EQ(make_last_name(999, out), 12u);
  EXPECT_EQ(str(out), "EINGEINGEING");
  EXPECT_EQ(make_last_name(1, out), 11u);
  EXPECT_EQ(str(out), "BARBAROUGHT");
  // Longest: three five-letter syllables fill 15 of the 16 chars.
  EXPECT_EQ(make_last_name(888, out), 15u);
  EXPECT_EQ(str(out), "ATIONATIONATION");
  EXPECT_EQ(out[15], '\0');
}

TEST(TpccGenerators, MakeLastNameZeroPadsAndIsInjective) {
  std::set<std::string> names;
  for (u32 n = 0; n < 1000; ++n) {
    char out[16];
    std::memset(out, 'Z', sizeof(out));
    const size_t len = make_last_name(n, out);
    ASSERT_GE(len, 9u);
    ASSERT_LE(len, 15u);
    for (size_t i = len; i < 16; ++i) ASSERT_EQ(out[i], '\0') << "number " << n << " pos " << i;
    names.insert(std::string(out, len));
  }
  EXPECT_EQ(names.size(), 1000u);
}

TEST(TpccGenerators, NURandRunConstantsSatisfyDeltaRule) {
  // Clause 2.1.6.1: |C_RUN - C_LOAD| for C_LAST in [65, 119], not 96 or 112.
  std::set<i64> deltas;
  for (u64 seed = 1; seed <= 5000; ++seed) {
    Random rng(seed);
    const NURandConstants load = NURandConstants::for_load(rng);
    const NURandConstants run = NURandConstants::for_run(load, rng);
    for (const NURandConstants* c : {&load, &run}) {
      ASSERT_GE(c->c_last, 0);
      ASSERT_LE(c->c_last, 255);
      ASSERT_GE(c->c_id, 0);
      ASSERT_LE(c->c_id, 1023);
      ASSERT_GE(c->ol_i_id, 0);
      ASSERT_LE(c->ol_i_id, 8191);
    }
    const i64 delta = run.c_last > load.c_last ? run.c_last - load.c_last : load.c_last - run.c_last;
    ASSERT_GE(delta, 65) << "seed " << seed;
    ASSERT_LE(delta, 119) << "seed " << seed;
    ASSERT_NE(delta, 96) << "seed " << seed;
    ASSERT_NE(delta, 112) << "seed " << seed;
    deltas.insert(delta);
  }
  // Not stuck on one value: most of the 53 allowed deltas occur.
  EXPECT_GE(deltas.size(), 45u);
}

TEST(TpccGenerators, NURandRunConstantsForExtremeLoadConstants) {
  // Every C_LOAD in 0..255 has an admissible C_RUN (no endless retry).
  Random rng(99);
  for (i64 c_load = 0; c_load <= 255; ++c_load) {
    NURandConstants load{c_load, 0, 0};
    const NURandConstants run = NURandConstants::for_run(load, rng);
    const i64 delta = run.c_last > c_load ? run.c_last - c_load : c_load - run.c_last;
    ASSERT_TRUE(delta >= 65 && delta <= 119 && delta != 96 && delta != 112) << "C_LOAD " << c_load;
  }
}

TEST(TpccGenerators, NURandStaysInRange) {
  Random rng(12345);
  struct Case { i64 a, x, y; };
  for (const Case k : {Case{255, 0, 999}, Case{1023, 1, 3000}, Case{8191, 1, 100000}}) {
    for (i64 c : {i64{0}, k.a / 2, k.a}) {
      i64 lo = k.y, hi = k.x;
      for (int i = 0; i < 50000; ++i) {
        const i64 v = rng.nurand(k.a, k.x, k.y, c);
        ASSERT_GE(v, k.x);
        ASSERT_LE(v, k.y);
        lo = std::min(lo, v);
        hi = std::max(hi, v);
      }
      // The whole range is reachable: the extremes come close.
      EXPECT_LE(lo - k.x, (k.y - k.x) / 100) << "A=" << k.a << " C=" << c;
      EXPECT_LE(k.y - hi, (k.y - k.x) / 100) << "A=" << k.a << " C=" << c;
    }
  }
}

TEST(TpccGenerators, NURandIsNonUniform) {
  // NURand(255, 0, 999): the OR with a value of 0..255 favours some numbers;
  // the most frequent C_LAST number is several times more frequent than average.
  Random rng(7);
  std::vector<int> hits(1000, 0);
  const int draws = 200000;
  for (int i = 0; i < draws; ++i) ++hits[static_cast<size_t>(rng.nurand(255, 0, 999, 0))];
  const int most = *std::max_element(hits.begin(), hits.end());
  EXPECT_GT(most, 3 * draws / 1000);
}

TEST(TpccGenerators, DataWithOriginal) {
  Random rng(3);
  int with = 0;
  const int n = 50000;
  for (int i = 0; i < n; ++i) {
    char buf[50];
    make_data_with_original(rng, buf, sizeof(buf), 26, 50);
    const std::string_view s = str(buf);
    ASSERT_GE(s.size(), 26u);
    ASSERT_LE(s.size(), 50u);
    if (s.find("ORIGINAL") != std::string_view::npos) ++with;
  }
  EXPECT_NEAR(static_cast<double>(with) / n, 0.10, 0.015);
}

TEST(TpccGenerators, Zip) {
  Random rng(5);
  for (int i = 0; i < 1000; ++i) {
    char zip[9];
    make_zip(rng, zip);
    const std::string_view s(zip, 9);
    ASSERT_TRUE(is_digits(s.substr(0, 4))) << s;
    ASSERT_EQ(s.substr(4), "11111");
  }
}

// ---------------------------------------------------------------------------
// The loaded database. One W=1 and one W=2 database, loaded once and only read.

// The databases are loaded on first use (ctest runs every test in a process of
// its own, so a test pays only for the databases it reads). Most invariants
// are checked on the W=2 database, which covers the per-warehouse loops.
class TpccLoader : public ::testing::Test {
 protected:
  static void TearDownTestSuite() {
    delete w1_;
    delete w2_;
    w1_ = nullptr;
    w2_ = nullptr;
  }
  static Loaded<IntEngine>& w1() {
    if (w1_ == nullptr) w1_ = new Loaded<IntEngine>(1, 1);
    return *w1_;
  }
  static Loaded<IntEngine>& w2() {
    if (w2_ == nullptr) w2_ = new Loaded<IntEngine>(2, 1);
    return *w2_;
  }
  static std::vector<Database<IntEngine>*> both() { return {&w1().db, &w2().db}; }
  static std::vector<Database<IntEngine>*> two_warehouses() { return {&w2().db}; }

 private:
  static Loaded<IntEngine>* w1_;
  static Loaded<IntEngine>* w2_;
};
Loaded<IntEngine>* TpccLoader::w1_ = nullptr;
Loaded<IntEngine>* TpccLoader::w2_ = nullptr;

TEST_F(TpccLoader, RowCounts) {
  for (Database<IntEngine>* db : both()) {
    const u64 w = db->warehouses;
    SCOPED_TRACE("W=" + std::to_string(w));
    EXPECT_EQ(db->item.size(), 100000u);
    EXPECT_EQ(db->warehouse.size(), w);
    EXPECT_EQ(db->stock.size(), 100000u * w);
    EXPECT_EQ(db->district.size(), 10u * w);
    EXPECT_EQ(db->customer.size(), 30000u * w);
    EXPECT_EQ(db->customer_by_name.size(), 30000u * w);
    EXPECT_EQ(db->history.size(), 30000u * w);
    EXPECT_EQ(db->order.size(), 30000u * w);
    EXPECT_EQ(db->order_by_customer.size(), 30000u * w);
    EXPECT_EQ(db->new_order.size(), 9000u * w);

    u64 ol_cnt_sum = 0;
    db->order.scan({0, 0, 0}, [&](const Order::Key&, const Order& o) {
      ol_cnt_sum += o.o_ol_cnt;
      return true;
    });
    EXPECT_EQ(db->order_line.size(), ol_cnt_sum);
    EXPECT_GE(db->order_line.size(), 5u * 30000u * w);
    EXPECT_LE(db->order_line.size(), 15u * 30000u * w);
    // 5..15 uniform: about 10 lines per order.
    EXPECT_NEAR(static_cast<double>(ol_cnt_sum) / (30000.0 * w), 10.0, 0.2);

    // Scans see exactly what size() reports.
    u64 scanned = 0;
    db->order_line.scan({0, 0, 0, 0}, [&](const OrderLine::Key&, const OrderLine&) {
      ++scanned;
      return true;
    });
    EXPECT_EQ(scanned, ol_cnt_sum);
    EXPECT_EQ(history_rows(*db).size(), 30000u * w);
  }
}

TEST_F(TpccLoader, WarehouseAndDistrictInitialValues) {
  for (Database<IntEngine>* db : two_warehouses()) {
    SCOPED_TRACE("W=" + std::to_string(db->warehouses));
    u32 seen_w = 0;
    db->warehouse.scan({0}, [&](const Warehouse::Key& k, const Warehouse& r) {
      ++seen_w;
      EXPECT_EQ(k.w_id, seen_w);
      EXPECT_EQ(r.w_id, k.w_id);
      EXPECT_EQ(r.w_ytd, 30000000);  // 300,000.00
      EXPECT_GE(r.w_tax, 0);
      EXPECT_LE(r.w_tax, 2000);
      EXPECT_GE(str(r.w_name).size(), 6u);
      EXPECT_LE(str(r.w_name).size(), 10u);
      for (std::string_view s : {str(r.w_street_1), str(r.w_street_2), str(r.w_city)}) {
        EXPECT_GE(s.size(), 10u);
        EXPECT_LE(s.size(), 20u);
        EXPECT_TRUE(is_alnum(s));
      }
      EXPECT_EQ(std::string_view(r.w_zip, 9).substr(4), "11111");
      return true;
    });
    EXPECT_EQ(seen_w, db->warehouses);

    u32 seen_d = 0;
    db->district.scan({0, 0}, [&](const District::Key& k, const District& r) {
      ++seen_d;
      EXPECT_EQ(r.d_w_id, k.d_w_id);
      EXPECT_EQ(r.d_id, k.d_id);
      EXPECT_GE(k.d_id, 1u);
      EXPECT_LE(k.d_id, 10u);
      EXPECT_EQ(r.d_ytd, 3000000);  // 30,000.00
      EXPECT_EQ(r.d_next_o_id, 3001u);
      EXPECT_GE(r.d_tax, 0);
      EXPECT_LE(r.d_tax, 2000);
      EXPECT_GE(str(r.d_name).size(), 6u);
      EXPECT_LE(str(r.d_name).size(), 10u);
      EXPECT_EQ(std::string_view(r.d_zip, 9).substr(4), "11111");
      return true;
    });
    EXPECT_EQ(seen_d, 10 * db->warehouses);
  }
}

TEST_F(TpccLoader, CustomerInitialValues) {
  for (Database<IntEngine>* db : two_warehouses()) {
    SCOPED_TRACE("W=" + std::to_string(db->warehouses));
    u64 n = 0, bad_credit = 0, failures = 0;
    db->customer.scan({0, 0, 0}, [&](const Customer::Key& k, const Customer& r) {
      ++n;
      auto check = [&](bool ok, const char* what) {
        if (!ok && ++failures <= 10)
          ADD_FAILURE() << what << " for customer (" << k.c_w_id << "," << k.c_d_id << "," << k.c_id << ")";
      };
      check(r.c_id == k.c_id && r.c_d_id == k.c_d_id && r.c_w_id == k.c_w_id, "key fields");
      check(r.c_last_number <= 999, "c_last_number in 0..999");
      char expected_last[16];
      make_last_name(r.c_last_number, expected_last);
      check(std::memcmp(expected_last, r.c_last, 16) == 0, "C_LAST built from c_last_number");
      if (k.c_id <= 1000) check(r.c_last_number == k.c_id - 1, "C_LAST of the first 1000 customers is c_id-1");
      check(std::string_view(r.c_middle, 2) == "OE", "C_MIDDLE");
      const std::string_view credit(r.c_credit, 2);
      check(credit == "GC" || credit == "BC", "C_CREDIT");
      if (credit == "BC") ++bad_credit;
      check(r.c_credit_lim == 5000000, "C_CREDIT_LIM 50,000.00");
      check(r.c_discount >= 0 && r.c_discount <= 5000, "C_DISCOUNT in 0..0.5");
      check(r.c_balance == -1000, "C_BALANCE -10.00");
      check(r.c_ytd_payment == 1000, "C_YTD_PAYMENT 10.00");
      check(r.c_payment_cnt == 1, "C_PAYMENT_CNT 1");
      check(r.c_delivery_cnt == 0, "C_DELIVERY_CNT 0");
      const std::string_view first = str(r.c_first);
      check(first.size() >= 8 && first.size() <= 16 && is_alnum(first), "C_FIRST 8..16");
      for (std::string_view s : {str(r.c_street_1), str(r.c_street_2), str(r.c_city)})
        check(s.size() >= 10 && s.size() <= 20, "address 10..20");
      check(std::string_view(r.c_zip, 9).substr(4) == "11111" && is_digits(std::string_view(r.c_zip, 4)), "C_ZIP");
      check(is_digits(std::string_view(r.c_phone, 16)), "C_PHONE 16 digits");
      const size_t data_len = strnlen(r.c_data, sizeof(r.c_data));
      check(data_len >= 300 && data_len <= 500, "C_DATA 300..500");
      return true;
    });
    EXPECT_EQ(n, 30000u * db->warehouses);
    EXPECT_EQ(failures, 0u);
    EXPECT_NEAR(static_cast<double>(bad_credit) / static_cast<double>(n), 0.10, 0.02);
  }
}

TEST_F(TpccLoader, CustomerLastNamesAndIndex) {
  for (Database<IntEngine>* db : two_warehouses()) {
    SCOPED_TRACE("W=" + std::to_string(db->warehouses));
    // Every entry of the C_LAST index points at a customer with that name, and
    // every customer is indexed once.
    u64 entries = 0, mismatches = 0;
    std::map<std::pair<u32, u32>, std::set<u32>> numbers_per_district;
    db->customer_by_name.scan({0, 0, 0, 0}, [&](const CustomerByName::Key& k) {
      ++entries;
      u32 number = 9999;
      const bool found =
          db->customer.lookup1({k.c_w_id, k.c_d_id, k.c_id}, [&](const Customer& c) { number = c.c_last_number; });
      if (!found || number != k.c_last_number) ++mismatches;
      numbers_per_district[{k.c_w_id, k.c_d_id}].insert(k.c_last_number);
      return true;
    });
    EXPECT_EQ(entries, 30000u * db->warehouses);
    EXPECT_EQ(mismatches, 0u);
    // All 1000 names occur in every district (the first 1000 customers).
    EXPECT_EQ(numbers_per_district.size(), 10u * db->warehouses);
    for (const auto& [wd, numbers] : numbers_per_district) EXPECT_EQ(numbers.size(), 1000u);
  }
  // The spec's own examples (warehouse 2 follows the same rule).
  char name[16];
  w2().db.customer.lookup1({2, 1, 1}, [&](const Customer& c) { std::memcpy(name, c.c_last, 16); });
  EXPECT_EQ(str(name), "BARBARBAR");
  w2().db.customer.lookup1({2, 7, 372}, [&](const Customer& c) { std::memcpy(name, c.c_last, 16); });
  EXPECT_EQ(str(name), "PRICALLYOUGHT");
  w2().db.customer.lookup1({2, 10, 1000}, [&](const Customer& c) { std::memcpy(name, c.c_last, 16); });
  EXPECT_EQ(str(name), "EINGEINGEING");
}

TEST_F(TpccLoader, HistoryInitialValues) {
  for (Database<IntEngine>* db : two_warehouses()) {
    SCOPED_TRACE("W=" + std::to_string(db->warehouses));
    std::set<std::tuple<u32, u32, u32>> customers;
    for (const History& h : history_rows(*db)) {
      EXPECT_EQ(h.h_amount, 1000);
      EXPECT_EQ(h.h_c_w_id, h.h_w_id);
      EXPECT_EQ(h.h_c_d_id, h.h_d_id);
      const size_t len = strnlen(h.h_data, sizeof(h.h_data));
      EXPECT_GE(len, 12u);
      EXPECT_LE(len, 24u);
      customers.insert({h.h_c_w_id, h.h_c_d_id, h.h_c_id});
    }
    EXPECT_EQ(customers.size(), 30000u * db->warehouses);  // one per customer
  }
}

TEST_F(TpccLoader, OrdersCarriersAndCustomerPermutation) {
  for (Database<IntEngine>* db : two_warehouses()) {
    SCOPED_TRACE("W=" + std::to_string(db->warehouses));
    std::map<std::pair<u32, u32>, std::vector<u32>> customers_per_district;
    std::set<std::tuple<u32, u32, u32, u32>> expected_by_customer;
    u64 failures = 0;
    db->order.scan({0, 0, 0}, [&](const Order::Key& k, const Order& o) {
      auto check = [&](bool ok, const char* what) {
        if (!ok && ++failures <= 10)
          ADD_FAILURE() << what << " for order (" << k.o_w_id << "," << k.o_d_id << "," << k.o_id << ")";
      };
      check(o.o_id == k.o_id && o.o_d_id == k.o_d_id && o.o_w_id == k.o_w_id, "key fields");
      check(k.o_id >= 1 && k.o_id <= 3000, "O_ID in 1..3000");
      if (k.o_id >= kFirstUndeliveredOrder)
        check(o.o_carrier_id == 0, "O_CARRIER_ID null for O_ID >= 2101");
      else
        check(o.o_carrier_id >= 1 && o.o_carrier_id <= 10, "O_CARRIER_ID in 1..10 for O_ID < 2101");
      check(o.o_ol_cnt >= 5 && o.o_ol_cnt <= 15, "O_OL_CNT in 5..15");
      check(o.o_all_local == 1, "O_ALL_LOCAL 1");
      customers_per_district[{k.o_w_id, k.o_d_id}].push_back(o.o_c_id);
      expected_by_customer.insert({k.o_w_id, k.o_d_id, o.o_c_id, k.o_id});
      return true;
    });
    EXPECT_EQ(failures, 0u);
    ASSERT_EQ(customers_per_district.size(), 10u * db->warehouses);
    for (auto& [wd, c_ids] : customers_per_district) {
      ASSERT_EQ(c_ids.size(), 3000u);
      const std::vector<u32> in_order_of_o_id = c_ids;
      std::sort(c_ids.begin(), c_ids.end());
      for (u32 i = 0; i < 3000; ++i) ASSERT_EQ(c_ids[i], i + 1) << "O_C_ID is not a permutation of 1..3000";
      EXPECT_NE(in_order_of_o_id, c_ids) << "O_C_ID is the identity, not a random permutation";
    }
    // ORDER's customer index holds exactly (w, d, o_c_id, o_id) of every order.
    std::set<std::tuple<u32, u32, u32, u32>> indexed;
    db->order_by_customer.scan({0, 0, 0, 0}, [&](const OrderByCustomer::Key& k) {
      indexed.insert({k.o_w_id, k.o_d_id, k.o_c_id, k.o_id});
      return true;
    });
    EXPECT_TRUE(indexed == expected_by_customer);
  }
}

TEST_F(TpccLoader, OrderLines) {
  for (Database<IntEngine>* db : two_warehouses()) {
    SCOPED_TRACE("W=" + std::to_string(db->warehouses));
    std::map<std::tuple<u32, u32, u32>, u32> ol_cnt;
    db->order.scan({0, 0, 0}, [&](const Order::Key& k, const Order& o) {
      ol_cnt[{k.o_w_id, k.o_d_id, k.o_id}] = o.o_ol_cnt;
      return true;
    });
    std::map<std::tuple<u32, u32, u32>, u32> lines_seen;
    u64 failures = 0;
    db->order_line.scan({0, 0, 0, 0}, [&](const OrderLine::Key& k, const OrderLine& l) {
      auto check = [&](bool ok, const char* what) {
        if (!ok && ++failures <= 10)
          ADD_FAILURE() << what << " for order line (" << k.ol_w_id << "," << k.ol_d_id << "," << k.ol_o_id << ","
                        << k.ol_number << ")";
      };
      check(l.ol_o_id == k.ol_o_id && l.ol_d_id == k.ol_d_id && l.ol_w_id == k.ol_w_id &&
                l.ol_number == k.ol_number,
            "key fields");
      u32& seen = lines_seen[{k.ol_w_id, k.ol_d_id, k.ol_o_id}];
      ++seen;
      check(k.ol_number == seen, "OL_NUMBER runs 1..O_OL_CNT");
      const bool delivered = k.ol_o_id < kFirstUndeliveredOrder;
      check(l.ol_i_id >= 1 && l.ol_i_id <= kItems, "OL_I_ID in 1..100000");
      check(l.ol_supply_w_id == k.ol_w_id, "OL_SUPPLY_W_ID = OL_W_ID");
      check(l.ol_quantity == 5, "OL_QUANTITY 5");
      if (delivered) {
        check(l.ol_amount == 0, "OL_AMOUNT 0 for delivered orders");
        check(l.ol_delivery_d != 0, "OL_DELIVERY_D set for delivered orders");
      } else {
        check(l.ol_amount >= 1 && l.ol_amount <= 999999, "OL_AMOUNT in 0.01..9999.99 for undelivered orders");
        check(l.ol_delivery_d == 0, "OL_DELIVERY_D null for undelivered orders");
      }
      check(strnlen(l.ol_dist_info, sizeof(l.ol_dist_info)) == 24, "OL_DIST_INFO 24 chars");
      return true;
    });
    EXPECT_EQ(failures, 0u);
    EXPECT_TRUE(lines_seen == ol_cnt) << "order lines per order differ from O_OL_CNT";
  }
}

TEST_F(TpccLoader, NewOrderHoldsExactlyTheLast900OrdersPerDistrict) {
  for (Database<IntEngine>* db : two_warehouses()) {
    SCOPED_TRACE("W=" + std::to_string(db->warehouses));
    for (u32 w = 1; w <= db->warehouses; ++w) {
      for (u32 d = 1; d <= 10; ++d) {
        std::vector<u32> ids;
        db->new_order.scan({w, d, 0}, [&](const NewOrder::Key& k, const NewOrder& r) {
          if (k.no_w_id != w || k.no_d_id != d) return false;
          EXPECT_EQ(r.no_o_id, k.no_o_id);
          EXPECT_EQ(r.no_d_id, d);
          EXPECT_EQ(r.no_w_id, w);
          ids.push_back(k.no_o_id);
          return true;
        });
        ASSERT_EQ(ids.size(), 900u) << "w " << w << " d " << d;
        for (u32 i = 0; i < 900; ++i) ASSERT_EQ(ids[i], 2101 + i);
      }
    }
  }
}

TEST_F(TpccLoader, Items) {
  u64 n = 0, original = 0, failures = 0;
  w1().db.item.scan({0}, [&](const Item::Key& k, const Item& r) {
    ++n;
    auto check = [&](bool ok, const char* what) {
      if (!ok && ++failures <= 10) ADD_FAILURE() << what << " for item " << k.i_id;
    };
    check(r.i_id == k.i_id && k.i_id == n, "I_ID runs 1..100000");
    check(r.i_im_id >= 1 && r.i_im_id <= 10000, "I_IM_ID in 1..10000");
    const std::string_view name = str(r.i_name);
    check(name.size() >= 14 && name.size() <= 24, "I_NAME 14..24");
    check(r.i_price >= 100 && r.i_price <= 10000, "I_PRICE in 1.00..100.00");
    const std::string_view data = str(r.i_data);
    check(data.size() >= 26 && data.size() <= 50, "I_DATA 26..50");
    if (data.find("ORIGINAL") != std::string_view::npos) ++original;
    return true;
  });
  EXPECT_EQ(n, 100000u);
  EXPECT_EQ(failures, 0u);
  EXPECT_NEAR(static_cast<double>(original) / static_cast<double>(n), 0.10, 0.01);
}

TEST_F(TpccLoader, Stock) {
  for (Database<IntEngine>* db : two_warehouses()) {
    SCOPED_TRACE("W=" + std::to_string(db->warehouses));
    u64 n = 0, original = 0, failures = 0;
    db->stock.scan({0, 0}, [&](const Stock::Key& k, const Stock& r) {
      ++n;
      auto check = [&](bool ok, const char* what) {
        if (!ok && ++failures <= 10) ADD_FAILURE() << what << " for stock (" << k.s_w_id << "," << k.s_i_id << ")";
      };
      check(r.s_i_id == k.s_i_id && r.s_w_id == k.s_w_id, "key fields");
      check(r.s_quantity >= 10 && r.s_quantity <= 100, "S_QUANTITY in 10..100");
      for (const auto& dist : r.s_dist) check(strnlen(dist, 24) == 24, "S_DIST_xx 24 chars");
      check(r.s_ytd == 0 && r.s_order_cnt == 0 && r.s_remote_cnt == 0, "S_YTD, S_ORDER_CNT, S_REMOTE_CNT 0");
      const std::string_view data = str(r.s_data);
      check(data.size() >= 26 && data.size() <= 50, "S_DATA 26..50");
      if (data.find("ORIGINAL") != std::string_view::npos) ++original;
      return true;
    });
    EXPECT_EQ(n, 100000u * db->warehouses);
    EXPECT_EQ(failures, 0u);
    EXPECT_NEAR(static_cast<double>(original) / static_cast<double>(n), 0.10, 0.01);
  }
}

TEST_F(TpccLoader, ConsistencyConditionsHoldAfterLoading) {
  for (Database<IntEngine>* db : both()) {
    SCOPED_TRACE("W=" + std::to_string(db->warehouses));
    const auto checks = check_consistency(*db);
    ASSERT_EQ(checks.size(), kCheckedConditions.size());
    for (const ConsistencyCheck& c : checks) EXPECT_TRUE(c.passed) << c.condition << ": " << c.detail;
  }
}

TEST_F(TpccLoader, SameSeedSameDatabaseOnEveryStack) {
  const u64 reference = logical_checksum(w1().db);
  {
    Loaded<IntEngine> again(1, 1);
    EXPECT_EQ(logical_checksum(again.db), reference) << "same seed, same engine";
  }
  {
    Loaded<GenEngine> generic(1, 1);
    EXPECT_EQ(logical_checksum(generic.db), reference) << "the key compare changed the loaded database";
    const auto checks = check_consistency(generic.db);
    for (const ConsistencyCheck& c : checks) EXPECT_TRUE(c.passed) << c.condition << ": " << c.detail;
  }
  {
    Loaded<IntEngine> big_pages(1, 1, 32768);
    EXPECT_EQ(logical_checksum(big_pages.db), reference) << "the page size changed the loaded database";
    EXPECT_LT(big_pages.engine.pages().page_count(), w1().engine.pages().page_count());
  }
}

// The E1 ladder's extremes load the same database through their bulk-load
// path: the full stack (buffer pool, locks, log, generic keys), the last
// paged step (direct pages, one session, 32 KB pages), the optimal kernel.
TEST_F(TpccLoader, SameSeedSameDatabaseOnTheLadder) {
  const u64 reference = logical_checksum(w1().db);
  const u64 reference_without_history = logical_checksum(w1().db, false);
  {
    Loaded<Engine<Step0>> full(1, 1);
    EXPECT_EQ(full.engine.log().end_lsn(), 0u) << "the bulk load wrote log records";
    EXPECT_EQ(full.engine.log().bytes_written(), 0u);
    EXPECT_EQ(logical_checksum(full.db), reference) << "step 0 loaded another database";
    const auto checks = check_consistency(full.db);
    for (const ConsistencyCheck& c : checks) EXPECT_TRUE(c.passed) << c.condition << ": " << c.detail;
    // Step 0 keeps its records on slotted pages (with Shore's record tags)
    // and has a directory B-tree; the bare engine keeps records in malloc'd
    // blocks (E1's "page access" switch removed): its pages are B-tree nodes.
    EXPECT_GT(full.engine.database_pages(), w1().engine.database_pages()) << "records on pages at step 0 only";
  }
  {
    Loaded<Engine<Step10>> direct(1, 1, 32768);
    EXPECT_EQ(logical_checksum(direct.db), reference) << "step 10 loaded another database";
  }
  {
    Loaded<MemEngine> optimal(1, 1);
    EXPECT_EQ(logical_checksum(optimal.db, false), reference_without_history) << "the optimal kernel loaded another database";
    EXPECT_EQ(optimal.db.history.size(), w1().db.history.size());
    EXPECT_EQ(optimal.db.stock.size(), 100000u);
    const auto checks = check_consistency(optimal.db);
    for (const ConsistencyCheck& c : checks) EXPECT_TRUE(c.passed) << c.condition << ": " << c.detail;
  }
}

TEST_F(TpccLoader, DifferentSeedDifferentDatabase) {
  Loaded<IntEngine> other(1, 2);
  EXPECT_NE(logical_checksum(other.db), logical_checksum(w1().db));
  // Only the random parts differ: the counts and the fixed initial values do not.
  EXPECT_EQ(other.db.customer.size(), w1().db.customer.size());
  EXPECT_EQ(other.db.new_order.size(), w1().db.new_order.size());
  const auto checks = check_consistency(other.db);
  for (const ConsistencyCheck& c : checks) EXPECT_TRUE(c.passed) << c.condition << ": " << c.detail;
}

TEST_F(TpccLoader, TwoWarehousesShareItemsButNotStock) {
  // The W=2 database starts with the same items as W=1 of the same seed (items
  // are loaded first, from the same stream), and warehouse 2's stock is its own.
  u64 same_items = 0;
  w2().db.item.scan({0}, [&](const Item::Key& k, const Item& r) {
    w1().db.item.lookup1({k.i_id}, [&](const Item& r1) {
      if (std::memcmp(&r, &r1, sizeof(Item)) == 0) ++same_items;
    });
    return true;
  });
  EXPECT_EQ(same_items, 100000u);
  u64 same_stock = 0;
  for (u32 i = 1; i <= 1000; ++i) {
    Stock s1{}, s2{};
    ASSERT_TRUE(w2().db.stock.lookup1({1, i}, [&](const Stock& s) { s1 = s; }));
    ASSERT_TRUE(w2().db.stock.lookup1({2, i}, [&](const Stock& s) { s2 = s; }));
    if (std::memcmp(s1.s_dist, s2.s_dist, sizeof(s1.s_dist)) == 0) ++same_stock;
  }
  EXPECT_EQ(same_stock, 0u);
}

// ---------------------------------------------------------------------------
// The consistency checker itself: each condition must catch its violation
// (a checker that always passes would make every "consistent" above vacuous).

// The conditions that fail, by number.
std::vector<int> failing(const std::vector<ConsistencyCheck>& checks) {
  std::vector<int> f;
  for (const ConsistencyCheck& c : checks)
    if (!c.passed) f.push_back(c.condition);
  return f;
}

// Each damage breaks its condition, and those that follow from it (an order
// without its NEW-ORDER row breaks 5 as well as 2 or 3), never another.
TEST(TpccConsistency, EachConditionDetectsItsViolation) {
  Loaded<IntEngine> loaded(1, 4);
  auto& db = loaded.db;
  using Fail = std::vector<int>;
  ASSERT_EQ(failing(check_consistency(db)), Fail{});

  // 1: W_YTD = sum(D_YTD).
  db.warehouse.update1({1}, [](Warehouse& w) { w.w_ytd += 1; });
  auto checks = check_consistency(db);
  EXPECT_EQ(failing(checks), Fail{1});
  EXPECT_NE(checks[0].detail.find("warehouse 1"), std::string::npos) << checks[0].detail;
  db.warehouse.update1({1}, [](Warehouse& w) { w.w_ytd -= 1; });

  // 2: D_NEXT_O_ID - 1 = max(O_ID).
  db.district.update1({1, 6}, [](District& d) { d.d_next_o_id += 1; });
  checks = check_consistency(db);
  EXPECT_EQ(failing(checks), Fail{2});
  EXPECT_NE(checks[1].detail.find("district 6"), std::string::npos) << checks[1].detail;
  db.district.update1({1, 6}, [](District& d) { d.d_next_o_id -= 1; });

  // 2: max(NO_O_ID) = max(O_ID) (the newest order left NEW-ORDER); 5 too.
  ASSERT_TRUE(db.new_order.erase({1, 2, 3000}));
  EXPECT_EQ(failing(check_consistency(db)), (Fail{2, 5}));
  ASSERT_TRUE(db.new_order.insert({1, 2, 3000}, NewOrder{3000, 2, 1}));

  // 3: NEW-ORDER ids are contiguous; 5 too.
  ASSERT_TRUE(db.new_order.erase({1, 4, 2500}));
  checks = check_consistency(db);
  EXPECT_EQ(failing(checks), (Fail{3, 5}));
  EXPECT_NE(checks[2].detail.find("district 4"), std::string::npos) << checks[2].detail;
  ASSERT_TRUE(db.new_order.insert({1, 4, 2500}, NewOrder{2500, 4, 1}));

  // 4: sum(O_OL_CNT) = ORDER-LINE rows; 6 (per order) too.
  OrderLine line{};
  ASSERT_TRUE(db.order_line.lookup1({1, 7, 10, 1}, [&](const OrderLine& l) { line = l; }));
  ASSERT_TRUE(db.order_line.erase({1, 7, 10, 1}));
  checks = check_consistency(db);
  EXPECT_EQ(failing(checks), (Fail{4, 6}));
  EXPECT_NE(checks[3].detail.find("district 7"), std::string::npos) << checks[3].detail;
  ASSERT_TRUE(db.order_line.insert({1, 7, 10, 1}, line));

  // 5 (and 7): a carrier for an order still in NEW-ORDER, its lines undelivered.
  db.order.update1({1, 3, 2600}, [](Order& o) { o.o_carrier_id = 4; });
  checks = check_consistency(db);
  EXPECT_EQ(failing(checks), (Fail{5, 7}));
  EXPECT_NE(checks[4].detail.find("order 2600"), std::string::npos) << checks[4].detail;
  db.order.update1({1, 3, 2600}, [](Order& o) { o.o_carrier_id = 0; });

  // 7: an undelivered line of a delivered order.
  u64 delivered_d = 0;
  db.order_line.update1({1, 5, 10, 2}, [&](OrderLine& l) {
    delivered_d = l.ol_delivery_d;
    l.ol_delivery_d = 0;
  });
  EXPECT_EQ(failing(check_consistency(db)), Fail{7});
  db.order_line.update1({1, 5, 10, 2}, [&](OrderLine& l) { l.ol_delivery_d = delivered_d; });

  // 12: C_BALANCE + C_YTD_PAYMENT = delivered OL_AMOUNT.
  db.customer.update1({1, 8, 77}, [](Customer& c) { c.c_balance += 1; });
  checks = check_consistency(db);
  EXPECT_EQ(failing(checks), Fail{12});
  EXPECT_NE(checks[7].detail.find("customer 77"), std::string::npos) << checks[7].detail;
  db.customer.update1({1, 8, 77}, [](Customer& c) { c.c_balance -= 1; });

  EXPECT_EQ(failing(check_consistency(db)), Fail{});
}

}  // namespace
}  // namespace dbrepro::tpcc
