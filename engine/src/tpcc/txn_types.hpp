#pragma once
// The five TPC-C transaction types and the two ways of drawing their inputs.
// The workload's own vocabulary: the driver's run configuration and results
// use it, the workload does not depend on the driver.
#include <array>

namespace dbrepro::tpcc {

enum class TxnType : int { kNewOrder = 0, kPayment = 1, kOrderStatus = 2, kDelivery = 3, kStockLevel = 4 };
inline constexpr int kTxnTypeCount = 5;
inline constexpr std::array<const char*, kTxnTypeCount> kTxnTypeNames = {
    "new_order", "payment", "order_status", "delivery", "stock_level"};

// paper: the simplified New Order / Payment of "OLTP through the looking glass".
// spec:  the TPC-C specification's input generation (clause 2.4.1 and 2.5.1).
enum class Variant : int { kPaper = 0, kSpec = 1 };

}  // namespace dbrepro::tpcc
