#pragma once
// Delivery (clause 2.7.4), run in the terminal's own transaction rather than
// queued: for each district of the warehouse, the oldest undelivered order
// gets a carrier, its lines a delivery date, its customer the amount.
#include "tpcc/database.hpp"
#include "tpcc/inputs.hpp"

namespace dbrepro::tpcc {

template <class Engine>
bool delivery(Database<Engine>& db, const DeliveryInput& in) {
  db.engine.begin();
  const u64 now = db.clock++;
  for (u32 d = 1; d <= kDistrictsPerWarehouse; ++d) {
    u32 o_id = 0;
    db.new_order.scan({in.w_id, d, 0}, [&](const NewOrder::Key& k, const NewOrder&) {
      if (k.no_w_id == in.w_id && k.no_d_id == d) o_id = k.no_o_id;
      return false;  // only the first (oldest) one
    });
    // None undelivered: the district is skipped (clause 2.7.4.2).
    if (o_id == 0 || !db.new_order.erase({in.w_id, d, o_id})) continue;

    u32 c_id = 0, ol_cnt = 0;
    db.order.update1({in.w_id, d, o_id}, [&](Order& o) {
      o.o_carrier_id = in.o_carrier_id;
      c_id = o.o_c_id;
      ol_cnt = o.o_ol_cnt;
    });
    Cents amount = 0;
    for (u32 number = 1; number <= ol_cnt; ++number)
      db.order_line.update1({in.w_id, d, o_id, number}, [&](OrderLine& ol) {
        ol.ol_delivery_d = now;
        amount += ol.ol_amount;
      });
    db.customer.update1({in.w_id, d, c_id}, [&](Customer& c) {
      c.c_balance += amount;
      c.c_delivery_cnt += 1;
    });
  }
  db.engine.commit();
  return true;
}

}  // namespace dbrepro::tpcc
