#pragma once
// Order-Status (clause 2.6.2): a customer's balance, their most recent order
// and its lines. Read-only.
#include "tpcc/transactions.hpp"

namespace dbrepro::tpcc {

// What the terminal shows (clause 2.6.3.3), in short.
struct OrderStatusOutput {
  u32 c_id = 0;
  Cents balance = 0;
  u32 o_id = 0;  // 0: the customer has no order
  u64 entry_d = 0;
  u32 carrier = 0;
  u32 lines = 0;
  Cents lines_total = 0;
};

template <class Engine>
bool order_status(Database<Engine>& db, const OrderStatusInput& in, OrderStatusOutput& out) {
  db.engine.begin();
  const u32 c_id = in.by_last_name ? customer_by_last_name(db, in.w_id, in.d_id, in.c_last_number) : in.c_id;
  if (c_id == 0) {  // no customer with that name: cannot happen on a loaded database
    db.engine.abort();
    return false;
  }
  out.c_id = c_id;
  db.customer.lookup1({in.w_id, in.d_id, c_id}, [&](const Customer& c) { out.balance = c.c_balance; });

  // The customer's orders are few: the last one in key order is the newest.
  u32 o_id = 0;
  db.order_by_customer.scan({in.w_id, in.d_id, c_id, 0}, [&](const OrderByCustomer::Key& k) {
    if (k.o_w_id != in.w_id || k.o_d_id != in.d_id || k.o_c_id != c_id) return false;
    o_id = k.o_id;
    return true;
  });
  out.o_id = o_id;
  if (o_id != 0) {
    db.order.lookup1({in.w_id, in.d_id, o_id}, [&](const Order& o) {
      out.entry_d = o.o_entry_d;
      out.carrier = o.o_carrier_id;
    });
    db.order_line.scan({in.w_id, in.d_id, o_id, 0}, [&](const OrderLine::Key& k, const OrderLine& ol) {
      if (k.ol_w_id != in.w_id || k.ol_d_id != in.d_id || k.ol_o_id != o_id) return false;
      ++out.lines;
      out.lines_total += ol.ol_amount;
      return true;
    });
  }
  db.engine.commit();
  return true;
}

}  // namespace dbrepro::tpcc
