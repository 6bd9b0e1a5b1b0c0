#pragma once
// What one TPC-C run is asked to do. Validated once, before anything is
// loaded; every field has a name the Python API and both CLIs use verbatim.
#include <array>
#include <string>

#include "common/types.hpp"

namespace dbrepro::tpcc {

enum class TxnType : int { kNewOrder = 0, kPayment = 1, kOrderStatus = 2, kDelivery = 3, kStockLevel = 4 };
inline constexpr int kTxnTypeCount = 5;
inline constexpr std::array<const char*, kTxnTypeCount> kTxnTypeNames = {
    "new_order", "payment", "order_status", "delivery", "stock_level"};

// paper: the simplified New Order / Payment of "OLTP through the looking glass".
// spec:  the TPC-C specification's input generation (clause 2.4.1 and 2.5.1).
enum class Variant : int { kPaper = 0, kSpec = 1 };

struct RunConfig {
  u32 warehouses = 1;
  u64 transactions = 40000;    // stop after this many (0: run for `seconds` only)
  double seconds = 0.0;        // stop after this long (0: no time limit)
  std::array<double, kTxnTypeCount> mix{0.5, 0.5, 0.0, 0.0, 0.0};  // weights per TxnType
  Variant variant = Variant::kPaper;
  u64 seed = 1;
  u32 page_size = 8192;
  std::string key_compare = "integer";  // "generic" or "integer"
  u64 progress_every = 1000;            // transactions between progress callbacks
  bool check_consistency = true;
};

// Throws std::invalid_argument naming the parameter and its allowed values.
void validate(const RunConfig& config);

const char* variant_name(Variant v);
Variant parse_variant(const std::string& name);      // throws std::invalid_argument
TxnType parse_txn_type(const std::string& name);     // throws std::invalid_argument

}  // namespace dbrepro::tpcc
