#pragma once
// Populates a TPC-C database (through the adapters' bulk-load path: no
// locks, no log) as clause 4.3.3.1 prescribes: 100,000 items; per
// warehouse 100,000 stock rows and 10 districts; per district 3,000
// customers (each with one history row), 3,000 orders with 5-15 order lines,
// the last 900 of them undelivered and listed in NEW-ORDER.
#include <algorithm>
#include <cstring>
#include <numeric>
#include <vector>

#include "tpcc/database.hpp"
#include "tpcc/generators.hpp"

namespace dbrepro::tpcc {

namespace detail {
inline void random_address(Random& rng, char* street_1, char* street_2, char* city, char* state, char* zip) {
  rng.astring(street_1, 20, 10, 20);
  rng.astring(street_2, 20, 10, 20);
  rng.astring(city, 20, 10, 20);
  for (int i = 0; i < 2; ++i) state[i] = static_cast<char>('A' + rng.uniform(0, 25));
  make_zip(rng, zip);
}
}  // namespace detail

template <class Engine>
void load_district(Database<Engine>& db, u32 w, u32 d, Random& rng, const NURandConstants& c);

template <class Engine>
void load_items(Database<Engine>& db, Random& rng) {
  for (u32 i = 1; i <= kItems; ++i) {
    Item row{};
    row.i_id = i;
    row.i_im_id = static_cast<u32>(rng.uniform(1, 10000));
    rng.astring(row.i_name, sizeof(row.i_name), 14, 24);
    row.i_price = rng.uniform(100, 10000);
    make_data_with_original(rng, row.i_data, sizeof(row.i_data), 26, 50);
    db.item.load({i}, row);
  }
}

template <class Engine>
void load_warehouse(Database<Engine>& db, u32 w, Random& rng, const NURandConstants& c) {
  {
    Warehouse row{};
    row.w_id = w;
    rng.astring(row.w_name, sizeof(row.w_name), 6, 10);
    detail::random_address(rng, row.w_street_1, row.w_street_2, row.w_city, row.w_state, row.w_zip);
    row.w_tax = static_cast<BasisPoints>(rng.uniform(0, 2000));
    row.w_ytd = 30000000;  // 300,000.00
    db.warehouse.load({w}, row);
  }
  for (u32 i = 1; i <= kItems; ++i) {
    Stock row{};
    row.s_i_id = i;
    row.s_w_id = w;
    row.s_quantity = static_cast<i32>(rng.uniform(10, 100));
    for (auto& dist : row.s_dist) rng.astring(dist, sizeof(dist), 24, 24);
    make_data_with_original(rng, row.s_data, sizeof(row.s_data), 26, 50);
    db.stock.load({w, i}, row);
  }
  for (u32 d = 1; d <= kDistrictsPerWarehouse; ++d) {
    District row{};
    row.d_id = d;
    row.d_w_id = w;
    rng.astring(row.d_name, sizeof(row.d_name), 6, 10);
    detail::random_address(rng, row.d_street_1, row.d_street_2, row.d_city, row.d_state, row.d_zip);
    row.d_tax = static_cast<BasisPoints>(rng.uniform(0, 2000));
    row.d_ytd = 3000000;  // 30,000.00
    row.d_next_o_id = kOrdersPerDistrict + 1;
    db.district.load({w, d}, row);
    load_district(db, w, d, rng, c);
  }
}

template <class Engine>
void load_district(Database<Engine>& db, u32 w, u32 d, Random& rng, const NURandConstants& c) {
  const u64 now = db.clock;
  for (u32 cid = 1; cid <= kCustomersPerDistrict; ++cid) {
    Customer row{};
    row.c_id = cid;
    row.c_d_id = d;
    row.c_w_id = w;
    row.c_last_number = cid <= 1000 ? cid - 1 : static_cast<u32>(rng.nurand(255, 0, 999, c.c_last));
    make_last_name(row.c_last_number, row.c_last);
    std::memcpy(row.c_middle, "OE", 2);
    rng.astring(row.c_first, sizeof(row.c_first), 8, 16);
    detail::random_address(rng, row.c_street_1, row.c_street_2, row.c_city, row.c_state, row.c_zip);
    rng.nstring(row.c_phone, 16);
    row.c_since = now;
    std::memcpy(row.c_credit, rng.uniform(1, 10) == 1 ? "BC" : "GC", 2);
    row.c_credit_lim = 5000000;  // 50,000.00
    row.c_discount = static_cast<BasisPoints>(rng.uniform(0, 5000));
    row.c_balance = -1000;       // -10.00
    row.c_ytd_payment = 1000;    // 10.00
    row.c_payment_cnt = 1;
    row.c_delivery_cnt = 0;
    rng.astring(row.c_data, sizeof(row.c_data), 300, 500);
    db.customer.load({w, d, cid}, row);
    db.customer_by_name.load({w, d, row.c_last_number, cid});

    History h{};
    h.h_c_id = cid;
    h.h_c_d_id = h.h_d_id = d;
    h.h_c_w_id = h.h_w_id = w;
    h.h_date = now;
    h.h_amount = 1000;
    rng.astring(h.h_data, sizeof(h.h_data), 12, 24);
    db.history.load(h);
  }

  // O_C_ID is a random permutation of the customer ids.
  std::vector<u32> customers(kCustomersPerDistrict);
  std::iota(customers.begin(), customers.end(), 1u);
  for (u32 i = kCustomersPerDistrict - 1; i > 0; --i)
    std::swap(customers[i], customers[static_cast<u32>(rng.uniform(0, i))]);

  for (u32 o = 1; o <= kOrdersPerDistrict; ++o) {
    const bool delivered = o < kFirstUndeliveredOrder;
    Order order{};
    order.o_id = o;
    order.o_d_id = d;
    order.o_w_id = w;
    order.o_c_id = customers[o - 1];
    order.o_entry_d = now;
    order.o_carrier_id = delivered ? static_cast<u32>(rng.uniform(1, 10)) : 0;
    order.o_ol_cnt = static_cast<u32>(rng.uniform(5, 15));
    order.o_all_local = 1;
    db.order.load({w, d, o}, order);
    db.order_by_customer.load({w, d, order.o_c_id, o});
    for (u32 ol = 1; ol <= order.o_ol_cnt; ++ol) {
      OrderLine line{};
      line.ol_o_id = o;
      line.ol_d_id = d;
      line.ol_w_id = w;
      line.ol_number = ol;
      line.ol_i_id = static_cast<u32>(rng.uniform(1, kItems));
      line.ol_supply_w_id = w;
      line.ol_delivery_d = delivered ? now : 0;
      line.ol_quantity = 5;
      line.ol_amount = delivered ? 0 : rng.uniform(1, 999999);
      rng.astring(line.ol_dist_info, sizeof(line.ol_dist_info), 24, 24);
      db.order_line.load({w, d, o, ol}, line);
    }
    if (!delivered) db.new_order.load({w, d, o}, NewOrder{o, d, w});
  }
}

// Loads the whole database for `warehouses` warehouses.
template <class Engine>
void load(Database<Engine>& db, u32 warehouses, Random& rng, const NURandConstants& c) {
  db.warehouses = warehouses;
  load_items(db, rng);
  for (u32 w = 1; w <= warehouses; ++w) load_warehouse(db, w, rng, c);
  ++db.clock;
}

}  // namespace dbrepro::tpcc
