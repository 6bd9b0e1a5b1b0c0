#pragma once
// Which TPC-C commits a database holds: every New Order writes its
// terminal's clock value into O_ENTRY_D, every Payment into H_DATE, and the
// terminals' clocks never overlap (driver/tpcc/terminals.hpp). A commit
// acknowledged with stamp s is in the database iff s is among these.
#include <unordered_set>

#include "tpcc/database.hpp"

namespace dbrepro::tpcc {

struct CommitStamps {
  std::unordered_set<u64> new_orders;  // O_ENTRY_D of every ORDER row
  std::unordered_set<u64> payments;    // H_DATE of every HISTORY row
};

template <class E>
CommitStamps commit_stamps(Database<E>& db) {
  CommitStamps stamps;
  db.engine.begin();
  db.order.scan({1, 1, 0}, [&](const Order::Key&, const Order& o) {
    stamps.new_orders.insert(o.o_entry_d);
    return true;
  });
  db.engine.commit();
  db.engine.catalog().lookup(History::kName).heap->for_each([&](RecordId, const std::byte* bytes) {
    History h;
    std::memcpy(&h, bytes, sizeof(h));
    stamps.payments.insert(h.h_date);
  });
  return stamps;
}

}  // namespace dbrepro::tpcc
