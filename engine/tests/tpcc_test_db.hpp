#pragma once
// A loaded TPC-C database for tests, and helpers that read it back: single
// rows, HISTORY, a hash of every stored byte, table sizes, the consistency
// conditions. Shared by the transaction tests.
#include <gtest/gtest.h>

#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "stack/engine.hpp"
#include "tpcc/consistency.hpp"
#include "tpcc/database.hpp"
#include "tpcc/loader.hpp"
#include "tpcc_test_engines.hpp"

namespace dbrepro::tpcc::test_db {

using test::kHasCatalog;
using test::make_engine;
using test::TempLog;

template <class Engine>
struct Loaded {
  Loaded(u32 warehouses, u64 seed) : engine(make_engine<Engine>(8192, log.path)), db(engine) {
    Random rng(seed);
    constants = NURandConstants::for_load(rng);
    load(db, warehouses, rng, constants);
  }
  TempLog log;
  Engine engine;
  Database<Engine> db;
  NURandConstants constants;
};

// Engine calls belong in a transaction (a stack with a lock manager or a log
// needs one); the helpers below read in one transaction each.
template <class Engine, class Fn>
void in_txn(Database<Engine>& db, Fn&& fn) {
  db.engine.begin();
  fn();
  db.engine.commit();
}

template <size_t N>
std::string_view str(const char (&a)[N]) {
  return {a, strnlen(a, N)};
}

// Copies of single rows (std::nullopt when the key is absent).
template <class Engine>
std::optional<District> district(Database<Engine>& db, u32 w, u32 d) {
  std::optional<District> r;
  in_txn(db, [&] { db.district.lookup1({w, d}, [&](const District& row) { r = row; }); });
  return r;
}
template <class Engine>
std::optional<Warehouse> warehouse(Database<Engine>& db, u32 w) {
  std::optional<Warehouse> r;
  in_txn(db, [&] { db.warehouse.lookup1({w}, [&](const Warehouse& row) { r = row; }); });
  return r;
}
template <class Engine>
std::optional<Customer> customer(Database<Engine>& db, u32 w, u32 d, u32 c) {
  std::optional<Customer> r;
  in_txn(db, [&] { db.customer.lookup1({w, d, c}, [&](const Customer& row) { r = row; }); });
  return r;
}
template <class Engine>
std::optional<Stock> stock(Database<Engine>& db, u32 w, u32 i) {
  std::optional<Stock> r;
  in_txn(db, [&] { db.stock.lookup1({w, i}, [&](const Stock& row) { r = row; }); });
  return r;
}
template <class Engine>
std::optional<Item> item(Database<Engine>& db, u32 i) {
  std::optional<Item> r;
  in_txn(db, [&] { db.item.lookup1({i}, [&](const Item& row) { r = row; }); });
  return r;
}
template <class Engine>
std::optional<Order> order(Database<Engine>& db, u32 w, u32 d, u32 o) {
  std::optional<Order> r;
  in_txn(db, [&] { db.order.lookup1({w, d, o}, [&](const Order& row) { r = row; }); });
  return r;
}
template <class Engine>
std::optional<OrderLine> order_line(Database<Engine>& db, u32 w, u32 d, u32 o, u32 n) {
  std::optional<OrderLine> r;
  in_txn(db, [&] { db.order_line.lookup1({w, d, o, n}, [&](const OrderLine& row) { r = row; }); });
  return r;
}
template <class Engine>
bool has_order_by_customer(Database<Engine>& db, u32 w, u32 d, u32 c, u32 o) {
  bool found = false;
  in_txn(db, [&] {
    db.order_by_customer.scan({w, d, c, o}, [&](const OrderByCustomer::Key& k) {
      found = k.o_w_id == w && k.o_d_id == d && k.o_c_id == c && k.o_id == o;
      return false;
    });
  });
  return found;
}

// HISTORY in creation order (empty on an engine without a catalog).
template <class Engine>
std::vector<History> history_rows(Database<Engine>& db) {
  std::vector<History> rows;
  if constexpr (kHasCatalog<Engine>) {
    db.engine.catalog().lookup(History::kName).heap->for_each([&](RecordId, const std::byte* bytes) {
      History r;
      std::memcpy(&r, bytes, sizeof(r));
      rows.push_back(r);
    });
  }
  return rows;
}

template <class Row>
bool same_bytes(const Row& a, const Row& b) {
  return std::memcmp(&a, &b, sizeof(Row)) == 0;
}

// A hash of every stored byte of every table, in key order (history: creation
// order). Comparing it before and after an operation on the same database
// tells whether anything at all changed.
struct Fnv {
  u64 h = 1469598103934665603ull;
  void add(const void* data, size_t n) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (size_t i = 0; i < n; ++i) {
      h ^= p[i];
      h *= 1099511628211ull;
    }
  }
};

template <class Row, class Table>
void hash_table(Fnv& f, Table& table) {
  typename Row::Key from{};
  if constexpr (kIsIndexOnly<Row>) {
    table.scan(from, [&](const typename Row::Key& k) {
      const PackedKey p = Row::pack(k);
      f.add(&p, sizeof(p));
      return true;
    });
  } else {
    table.scan(from, [&](const typename Row::Key& k, const Row& r) {
      const PackedKey p = Row::pack(k);
      f.add(&p, sizeof(p));
      f.add(&r, sizeof(r));
      return true;
    });
  }
}

template <class Engine>
u64 database_hash(Database<Engine>& db) {
  Fnv f;
  db.engine.begin();
  hash_table<Warehouse>(f, db.warehouse);
  hash_table<District>(f, db.district);
  hash_table<Customer>(f, db.customer);
  hash_table<CustomerByName>(f, db.customer_by_name);
  hash_table<NewOrder>(f, db.new_order);
  hash_table<Order>(f, db.order);
  hash_table<OrderByCustomer>(f, db.order_by_customer);
  hash_table<OrderLine>(f, db.order_line);
  hash_table<Item>(f, db.item);
  hash_table<Stock>(f, db.stock);
  db.engine.commit();
  for (const History& h : history_rows(db)) f.add(&h, sizeof(h));
  f.add(&db.clock, sizeof(db.clock));
  return f.h;
}

template <class Engine>
std::vector<u64> table_sizes(Database<Engine>& db) {
  return {db.warehouse.size(), db.district.size(), db.customer.size(), db.customer_by_name.size(),
          db.history.size(),   db.new_order.size(), db.order.size(),   db.order_by_customer.size(),
          db.order_line.size(), db.item.size(),     db.stock.size()};
}

template <class Engine>
void expect_consistent(Database<Engine>& db) {
  const auto checks = check_consistency(db);
  ASSERT_EQ(checks.size(), kCheckedConditions.size());
  for (const ConsistencyCheck& c : checks) EXPECT_TRUE(c.passed) << "condition " << c.condition << ": " << c.detail;
}

}  // namespace dbrepro::tpcc::test_db
