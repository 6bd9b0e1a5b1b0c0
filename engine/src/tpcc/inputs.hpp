#pragma once
// Transaction inputs, drawn before a transaction runs (clauses 2.4.1, 2.5.1,
// 2.6.1, 2.7.1 and 2.8.1), so that the same seed gives the same transaction stream on every
// engine stack.
#include <array>

#include "common/random.hpp"
#include "tpcc/txn_types.hpp"
#include "tpcc/generators.hpp"
#include "tpcc/schema.hpp"

namespace dbrepro::tpcc {

inline constexpr u32 kUnusedItem = kItems + 1;  // the "invalid item" of the 1% rollbacks

struct NewOrderLineInput {
  u32 i_id;
  u32 supply_w_id;
  u32 quantity;
};

struct NewOrderInput {
  u32 w_id;
  u32 d_id;
  u32 c_id;
  u32 ol_cnt;
  std::array<NewOrderLineInput, 15> lines;
};

struct PaymentInput {
  u32 w_id;
  u32 d_id;
  u32 c_w_id;
  u32 c_d_id;
  bool by_last_name;
  u32 c_id;           // when !by_last_name
  u32 c_last_number;  // when by_last_name
  Cents amount;
};

struct OrderStatusInput {
  u32 w_id;
  u32 d_id;
  bool by_last_name;
  u32 c_id;           // when !by_last_name
  u32 c_last_number;  // when by_last_name
};

struct DeliveryInput {
  u32 w_id;
  u32 o_carrier_id;
};

struct StockLevelInput {
  u32 w_id;
  u32 d_id;
  i32 threshold;
};

// paper: 10 items, all from the home warehouse; 1% carry an invalid item.
// spec:  5-15 items, 1% of them remote, 1% of transactions roll back.
NewOrderInput make_new_order_input(Random& rng, Variant variant, u32 warehouses, u32 home_w,
                                   const NURandConstants& c);

// paper: home warehouse, customer by id.
// spec:  15% remote customers, 60% selected by last name.
PaymentInput make_payment_input(Random& rng, Variant variant, u32 warehouses, u32 home_w,
                                const NURandConstants& c);

// Order-Status, Delivery and Stock-Level exist only in the spec's form: the
// looking-glass paper ran New Order and Payment alone.
// Order-Status: home warehouse and district, 60% of customers by last name.
OrderStatusInput make_order_status_input(Random& rng, u32 home_w, const NURandConstants& c);
// Delivery: a random carrier for the home warehouse's ten districts.
DeliveryInput make_delivery_input(Random& rng, u32 home_w);
// Stock-Level: a district of the home warehouse and a threshold in [10, 20].
StockLevelInput make_stock_level_input(Random& rng, u32 home_w);

}  // namespace dbrepro::tpcc
