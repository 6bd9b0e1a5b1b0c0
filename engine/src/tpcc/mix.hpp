#pragma once
// One terminal's next transaction: pick its type by the mix, draw its input,
// run it. Every driver (single- or multi-threaded) goes through here, so the
// same seed gives the same transaction stream on every engine stack.
#include <array>

#include "common/random.hpp"
#include "tpcc/delivery.hpp"
#include "tpcc/inputs.hpp"
#include "tpcc/order_status.hpp"
#include "tpcc/stock_level.hpp"
#include "tpcc/transactions.hpp"
#include "tpcc/txn_types.hpp"

namespace dbrepro::tpcc {

// Picks a transaction type by weight (one uniform draw per transaction).
class MixChooser {
 public:
  explicit MixChooser(const std::array<double, kTxnTypeCount>& mix) {
    double total = 0;
    for (double w : mix) total += w;
    double acc = 0;
    for (int i = 0; i < kTxnTypeCount; ++i) {
      acc += mix[i] / total;
      cumulative_[i] = mix[i] > 0 ? acc : -1.0;  // a zero weight is never picked
    }
    for (int i = kTxnTypeCount - 1; i >= 0; --i)
      if (mix[i] > 0) {
        cumulative_[i] = 1.0;
        break;
      }
  }
  TxnType pick(Random& rng) const {
    const double u = rng.unit();
    for (int i = 0; i < kTxnTypeCount; ++i)
      if (u < cumulative_[i]) return static_cast<TxnType>(i);
    return static_cast<TxnType>(kTxnTypeCount - 1);
  }

 private:
  std::array<double, kTxnTypeCount> cumulative_{};
};

// Out of line, so that callgrind attributes each transaction's instructions
// to one symbol (the inputs are drawn outside them).
template <class Engine>
[[gnu::noinline]] bool execute_new_order(Database<Engine>& db, const NewOrderInput& in) {
  return new_order(db, in);
}
template <class Engine>
[[gnu::noinline]] bool execute_payment(Database<Engine>& db, const PaymentInput& in) {
  return payment(db, in);
}
template <class Engine>
[[gnu::noinline]] bool execute_order_status(Database<Engine>& db, const OrderStatusInput& in) {
  OrderStatusOutput out;  // shown to nobody: the work is in reading it
  return order_status(db, in, out);
}
template <class Engine>
[[gnu::noinline]] bool execute_delivery(Database<Engine>& db, const DeliveryInput& in) {
  return delivery(db, in);
}
template <class Engine>
[[gnu::noinline]] bool execute_stock_level(Database<Engine>& db, const StockLevelInput& in) {
  StockLevelOutput out;
  return stock_level(db, in, out);
}

// Draws the input of a `type` transaction for home warehouse home_w and runs
// it inside measure(run) (measure brackets exactly the transaction, e.g. with
// counter reads). Returns whether it committed.
template <class Engine, class Measure>
bool run_transaction(Database<Engine>& db, TxnType type, Random& rng, Variant variant, u32 warehouses, u32 home_w,
                     const NURandConstants& constants, Measure&& measure) {
  switch (type) {
    case TxnType::kNewOrder: {
      const auto in = make_new_order_input(rng, variant, warehouses, home_w, constants);
      return measure([&] { return execute_new_order(db, in); });
    }
    case TxnType::kPayment: {
      const auto in = make_payment_input(rng, variant, warehouses, home_w, constants);
      return measure([&] { return execute_payment(db, in); });
    }
    case TxnType::kOrderStatus: {
      const auto in = make_order_status_input(rng, home_w, constants);
      return measure([&] { return execute_order_status(db, in); });
    }
    case TxnType::kDelivery: {
      const auto in = make_delivery_input(rng, home_w);
      return measure([&] { return execute_delivery(db, in); });
    }
    case TxnType::kStockLevel: {
      const auto in = make_stock_level_input(rng, home_w);
      return measure([&] { return execute_stock_level(db, in); });
    }
  }
  return false;
}

}  // namespace dbrepro::tpcc
