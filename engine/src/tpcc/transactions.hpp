#pragma once
// New Order (clause 2.4.2) and Payment (clause 2.5.2), written once against
// the storage adapter, so every engine stack runs the very same code.
//
// New Order is two-phase, as in "OLTP through the looking glass": every item
// is read and validated before the first write, so a user abort (an unused
// item id) never has anything to roll back.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string_view>
#include <vector>

#include "tpcc/database.hpp"
#include "tpcc/inputs.hpp"

namespace dbrepro::tpcc {

// Returns true on commit, false on the user abort of an invalid item.
template <class Engine>
bool new_order(Database<Engine>& db, const NewOrderInput& in) {
  db.engine.begin();

  // Phase 1: read every item; abort before any write if one is missing.
  struct ItemInfo {
    Cents price;
    bool original;
  };
  std::array<ItemInfo, 15> items;
  for (u32 i = 0; i < in.ol_cnt; ++i) {
    const bool found = db.item.lookup1({in.lines[i].i_id}, [&](const Item& item) {
      items[i].price = item.i_price;
      items[i].original =
          std::string_view(item.i_data, strnlen(item.i_data, sizeof(item.i_data))).find("ORIGINAL") !=
          std::string_view::npos;
    });
    if (!found) {
      db.engine.abort();
      return false;
    }
  }

  // Phase 2: the writes.
  BasisPoints w_tax = 0, d_tax = 0, c_discount = 0;
  u32 o_id = 0;
  db.warehouse.lookup1({in.w_id}, [&](const Warehouse& w) { w_tax = w.w_tax; });
  db.district.update1({in.w_id, in.d_id}, [&](District& d) {
    d_tax = d.d_tax;
    o_id = d.d_next_o_id++;
  });
  db.customer.lookup1({in.w_id, in.d_id, in.c_id}, [&](const Customer& c) { c_discount = c.c_discount; });

  bool all_local = true;
  Cents total = 0;
  const u64 now = db.clock++;
  for (u32 i = 0; i < in.ol_cnt; ++i) {
    const NewOrderLineInput& line = in.lines[i];
    if (line.supply_w_id != in.w_id) all_local = false;
    OrderLine ol{};
    db.stock.update1({line.supply_w_id, line.i_id}, [&](Stock& s) {
      const i32 qty = static_cast<i32>(line.quantity);
      s.s_quantity = s.s_quantity >= qty + 10 ? s.s_quantity - qty : s.s_quantity - qty + 91;
      s.s_ytd += line.quantity;
      s.s_order_cnt += 1;
      if (line.supply_w_id != in.w_id) s.s_remote_cnt += 1;
      std::memcpy(ol.ol_dist_info, s.s_dist[in.d_id - 1], sizeof(ol.ol_dist_info));
    });
    ol.ol_o_id = o_id;
    ol.ol_d_id = in.d_id;
    ol.ol_w_id = in.w_id;
    ol.ol_number = i + 1;
    ol.ol_i_id = line.i_id;
    ol.ol_supply_w_id = line.supply_w_id;
    ol.ol_delivery_d = 0;
    ol.ol_quantity = line.quantity;
    ol.ol_amount = static_cast<Cents>(line.quantity) * items[i].price;
    total += ol.ol_amount;
    db.order_line.insert({in.w_id, in.d_id, o_id, i + 1}, ol);
  }

  Order order{};
  order.o_id = o_id;
  order.o_d_id = in.d_id;
  order.o_w_id = in.w_id;
  order.o_c_id = in.c_id;
  order.o_entry_d = now;
  order.o_carrier_id = 0;
  order.o_ol_cnt = in.ol_cnt;
  order.o_all_local = all_local ? 1 : 0;
  db.order.insert({in.w_id, in.d_id, o_id}, order);
  db.new_order.insert({in.w_id, in.d_id, o_id}, NewOrder{o_id, in.d_id, in.w_id});
  db.order_by_customer.insert({in.w_id, in.d_id, in.c_id, o_id});

  // The terminal's output (clause 2.4.3.3): total with discount and taxes.
  volatile Cents shown = total * (10000 - c_discount) / 10000 * (10000 + w_tax + d_tax) / 10000;
  (void)shown;
  db.engine.commit();
  return true;
}

// The customer of a by-name Payment or Order-Status: the one at position
// ceil(n/2) among those with that last name, sorted by C_FIRST (clause 2.5.2.2).
template <class Engine>
u32 customer_by_last_name(Database<Engine>& db, u32 w_id, u32 d_id, u32 c_last_number) {
  struct Candidate {
    char first[16];
    u32 c_id;
  };
  std::vector<Candidate> found;
  db.customer_by_name.scan({w_id, d_id, c_last_number, 0}, [&](const CustomerByName::Key& k) {
    if (k.c_w_id != w_id || k.c_d_id != d_id || k.c_last_number != c_last_number) return false;
    found.push_back(Candidate{{}, k.c_id});
    return true;
  });
  if (found.empty()) return 0;
  for (Candidate& cand : found)
    db.customer.lookup1({w_id, d_id, cand.c_id}, [&](const Customer& c) {
      std::memcpy(cand.first, c.c_first, sizeof(cand.first));
    });
  std::sort(found.begin(), found.end(), [](const Candidate& a, const Candidate& b) {
    return std::memcmp(a.first, b.first, sizeof(a.first)) < 0;
  });
  return found[(found.size() - 1) / 2].c_id;
}

// Returns true on commit (Payment has no user aborts).
template <class Engine>
bool payment(Database<Engine>& db, const PaymentInput& in) {
  db.engine.begin();
  const u32 c_id = in.by_last_name ? customer_by_last_name(db, in.c_w_id, in.c_d_id, in.c_last_number) : in.c_id;
  if (c_id == 0) {  // no customer with that name: cannot happen on a loaded database
    db.engine.abort();
    return false;
  }

  char w_name[10], d_name[10];
  db.warehouse.update1({in.w_id}, [&](Warehouse& w) {
    w.w_ytd += in.amount;
    std::memcpy(w_name, w.w_name, sizeof(w_name));
  });
  db.district.update1({in.w_id, in.d_id}, [&](District& d) {
    d.d_ytd += in.amount;
    std::memcpy(d_name, d.d_name, sizeof(d_name));
  });
  db.customer.update1({in.c_w_id, in.c_d_id, c_id}, [&](Customer& c) {
    c.c_balance -= in.amount;
    c.c_ytd_payment += in.amount;
    c.c_payment_cnt += 1;
    if (c.c_credit[0] == 'B') {
      // Bad credit: prepend the payment to C_DATA, keeping 500 characters.
      char entry[64];
      const int n = std::snprintf(entry, sizeof(entry), "%u %u %u %u %u %lld.%02lld|", c_id, in.c_d_id, in.c_w_id,
                                  in.d_id, in.w_id, static_cast<long long>(in.amount / 100),
                                  static_cast<long long>(in.amount % 100));
      const size_t len = static_cast<size_t>(n);
      std::memmove(c.c_data + len, c.c_data, sizeof(c.c_data) - len);
      std::memcpy(c.c_data, entry, len);
    }
  });

  History h{};
  h.h_c_id = c_id;
  h.h_c_d_id = in.c_d_id;
  h.h_c_w_id = in.c_w_id;
  h.h_d_id = in.d_id;
  h.h_w_id = in.w_id;
  h.h_date = db.clock++;
  h.h_amount = in.amount;
  // H_DATA: W_NAME, four spaces, D_NAME (truncated to the column's 24 chars).
  std::memset(h.h_data, ' ', sizeof(h.h_data));
  const size_t wl = strnlen(w_name, sizeof(w_name));
  std::memcpy(h.h_data, w_name, wl);
  std::memcpy(h.h_data + wl + 4, d_name, std::min(strnlen(d_name, sizeof(d_name)), sizeof(h.h_data) - wl - 4));
  db.history.insert(h);

  db.engine.commit();
  return true;
}

}  // namespace dbrepro::tpcc
