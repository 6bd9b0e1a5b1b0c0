#pragma once
// One TPC-C database on an engine stack: the nine tables and two secondary
// indexes, each behind the engine's storage adapter.
#include "tpcc/schema.hpp"

namespace dbrepro::tpcc {

template <class Engine>
struct Database {
  template <class Row>
  using Table = typename Engine::template Table<Row>;

  explicit Database(Engine& engine)
      : engine(engine),
        warehouse(engine), district(engine), customer(engine), customer_by_name(engine), history(engine),
        new_order(engine), order(engine), order_by_customer(engine), order_line(engine), item(engine),
        stock(engine) {}

  Engine& engine;
  u32 warehouses = 0;
  Table<Warehouse> warehouse;
  Table<District> district;
  Table<Customer> customer;
  Table<CustomerByName> customer_by_name;
  Table<History> history;
  Table<NewOrder> new_order;
  Table<Order> order;
  Table<OrderByCustomer> order_by_customer;
  Table<OrderLine> order_line;
  Table<Item> item;
  Table<Stock> stock;
  u64 clock = 1;  // logical time for dates: deterministic across machines
};

}  // namespace dbrepro::tpcc
