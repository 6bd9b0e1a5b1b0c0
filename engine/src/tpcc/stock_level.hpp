#pragma once
// Stock-Level (clause 2.8.2): how many distinct items of the district's last
// 20 orders have stock below the threshold. Read-only.
#include <algorithm>
#include <vector>

#include "tpcc/database.hpp"
#include "tpcc/inputs.hpp"

namespace dbrepro::tpcc {

// What the terminal shows (clause 2.8.3.3).
struct StockLevelOutput {
  u32 low_stock = 0;
};

template <class Engine>
bool stock_level(Database<Engine>& db, const StockLevelInput& in, StockLevelOutput& out) {
  db.engine.begin();
  u32 next_o_id = 0;
  db.district.lookup1({in.w_id, in.d_id}, [&](const District& d) { next_o_id = d.d_next_o_id; });
  const u32 first = next_o_id > 20 ? next_o_id - 20 : 1;

  std::vector<u32> items;
  items.reserve(20 * 15);
  db.order_line.scan({in.w_id, in.d_id, first, 0}, [&](const OrderLine::Key& k, const OrderLine& ol) {
    if (k.ol_w_id != in.w_id || k.ol_d_id != in.d_id || k.ol_o_id >= next_o_id) return false;
    items.push_back(ol.ol_i_id);
    return true;
  });
  std::sort(items.begin(), items.end());
  items.erase(std::unique(items.begin(), items.end()), items.end());

  for (u32 i_id : items)
    db.stock.lookup1({in.w_id, i_id}, [&](const Stock& s) { out.low_stock += s.s_quantity < in.threshold ? 1 : 0; });
  db.engine.commit();
  return true;
}

}  // namespace dbrepro::tpcc
