#pragma once
// TPC-C consistency conditions (clause 3.3.2), checked by scanning the
// tables through the same storage adapter the transactions use: 1-7 and 12,
// every condition that needs no scan of HISTORY (a heap without a key).
#include <string>
#include <unordered_map>
#include <vector>

#include "tpcc/consistency_check.hpp"
#include "tpcc/database.hpp"

namespace dbrepro::tpcc {

template <class Engine>
std::vector<ConsistencyCheck> check_consistency(Database<Engine>& db) {
  ConsistencyCheck c1{1, "W_YTD = sum(D_YTD) for each warehouse", true, ""};
  ConsistencyCheck c2{2, "D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID) for each district", true, ""};
  ConsistencyCheck c3{3, "max(NO_O_ID) - min(NO_O_ID) + 1 = rows in NEW-ORDER for each district", true, ""};
  ConsistencyCheck c4{4, "sum(O_OL_CNT) = rows in ORDER-LINE for each district", true, ""};
  ConsistencyCheck c5{5, "O_CARRIER_ID is null iff the order has a NEW-ORDER row", true, ""};
  ConsistencyCheck c6{6, "O_OL_CNT = rows in ORDER-LINE for each order", true, ""};
  ConsistencyCheck c7{7, "OL_DELIVERY_D is null iff O_CARRIER_ID is null", true, ""};
  ConsistencyCheck c12{12, "C_BALANCE + C_YTD_PAYMENT = sum(OL_AMOUNT) of delivered lines for each customer", true,
                       ""};
  auto fail = [](ConsistencyCheck& c, const std::string& detail) {
    if (c.passed) c.detail = detail;  // keep the first violation
    c.passed = false;
  };

  db.engine.begin();  // one read-only transaction over everything
  for (u32 w = 1; w <= db.warehouses; ++w) {
    Cents w_ytd = 0, d_ytd_sum = 0;
    db.warehouse.lookup1({w}, [&](const Warehouse& row) { w_ytd = row.w_ytd; });
    for (u32 d = 1; d <= kDistrictsPerWarehouse; ++d) {
      const std::string where = "warehouse " + std::to_string(w) + " district " + std::to_string(d);
      u32 next_o_id = 0;
      db.district.lookup1({w, d}, [&](const District& row) {
        d_ytd_sum += row.d_ytd;
        next_o_id = row.d_next_o_id;
      });

      // Per order: its customer, carrier and line count, and the lines seen.
      struct OrderFacts {
        u32 c_id, carrier, ol_cnt, lines_seen = 0;
        bool has_new_order = false;
      };
      std::unordered_map<u32, OrderFacts> orders;
      u32 max_o_id = 0;
      u64 ol_cnt_sum = 0;
      db.order.scan({w, d, 0}, [&](const Order::Key& k, const Order& row) {
        if (k.o_w_id != w || k.o_d_id != d) return false;
        max_o_id = k.o_id;
        ol_cnt_sum += row.o_ol_cnt;
        orders.emplace(k.o_id, OrderFacts{row.o_c_id, row.o_carrier_id, row.o_ol_cnt});
        return true;
      });

      u32 min_no = 0, max_no = 0;
      u64 no_rows = 0;
      db.new_order.scan({w, d, 0}, [&](const NewOrder::Key& k, const NewOrder&) {
        if (k.no_w_id != w || k.no_d_id != d) return false;
        if (no_rows == 0) min_no = k.no_o_id;
        max_no = k.no_o_id;
        ++no_rows;
        if (auto it = orders.find(k.no_o_id); it != orders.end()) it->second.has_new_order = true;
        return true;
      });

      u64 ol_rows = 0;
      std::unordered_map<u32, Cents> delivered;  // per customer
      db.order_line.scan({w, d, 0, 0}, [&](const OrderLine::Key& k, const OrderLine& row) {
        if (k.ol_w_id != w || k.ol_d_id != d) return false;
        ++ol_rows;
        auto it = orders.find(k.ol_o_id);
        if (it == orders.end()) {
          fail(c6, where + ": order line of order " + std::to_string(k.ol_o_id) + " that has no ORDER row");
          return true;
        }
        ++it->second.lines_seen;
        if ((row.ol_delivery_d == 0) != (it->second.carrier == 0))
          fail(c7, where + " order " + std::to_string(k.ol_o_id) + " line " + std::to_string(k.ol_number) +
                       ": OL_DELIVERY_D " + (row.ol_delivery_d == 0 ? "null" : "set") + ", O_CARRIER_ID " +
                       std::to_string(it->second.carrier));
        if (row.ol_delivery_d != 0) delivered[it->second.c_id] += row.ol_amount;
        return true;
      });
      for (const auto& [o_id, facts] : orders) {
        if ((facts.carrier == 0) != facts.has_new_order)
          fail(c5, where + " order " + std::to_string(o_id) + ": O_CARRIER_ID " + std::to_string(facts.carrier) +
                       (facts.has_new_order ? " with" : " without") + " a NEW-ORDER row");
        if (facts.ol_cnt != facts.lines_seen)
          fail(c6, where + " order " + std::to_string(o_id) + ": O_OL_CNT = " + std::to_string(facts.ol_cnt) +
                       ", lines = " + std::to_string(facts.lines_seen));
      }
      db.customer.scan({w, d, 0}, [&](const Customer::Key& k, const Customer& row) {
        if (k.c_w_id != w || k.c_d_id != d) return false;
        const auto it = delivered.find(k.c_id);
        const Cents amount = it == delivered.end() ? 0 : it->second;
        if (row.c_balance + row.c_ytd_payment != amount)
          fail(c12, where + " customer " + std::to_string(k.c_id) + ": C_BALANCE + C_YTD_PAYMENT = " +
                        std::to_string(row.c_balance + row.c_ytd_payment) + " cents, delivered lines = " +
                        std::to_string(amount) + " cents");
        return true;
      });

      if (next_o_id - 1 != max_o_id || (no_rows > 0 && max_no != max_o_id))
        fail(c2, where + ": D_NEXT_O_ID - 1 = " + std::to_string(next_o_id - 1) + ", max(O_ID) = " +
                     std::to_string(max_o_id) + ", max(NO_O_ID) = " + std::to_string(max_no));
      if (no_rows > 0 && max_no - min_no + 1 != no_rows)
        fail(c3, where + ": max - min + 1 = " + std::to_string(max_no - min_no + 1) + ", rows = " +
                     std::to_string(no_rows));
      if (ol_cnt_sum != ol_rows)
        fail(c4, where + ": sum(O_OL_CNT) = " + std::to_string(ol_cnt_sum) + ", ORDER-LINE rows = " +
                     std::to_string(ol_rows));
    }
    if (w_ytd != d_ytd_sum)
      fail(c1, "warehouse " + std::to_string(w) + ": W_YTD = " + std::to_string(w_ytd) +
                   " cents, sum(D_YTD) = " + std::to_string(d_ytd_sum) + " cents");
  }
  db.engine.commit();
  return {c1, c2, c3, c4, c5, c6, c7, c12};
}

}  // namespace dbrepro::tpcc
