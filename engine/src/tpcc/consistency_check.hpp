#pragma once
// One TPC-C consistency condition (clause 3.3.2) and whether a database met it.
#include <array>
#include <string>

namespace dbrepro::tpcc {

struct ConsistencyCheck {
  int condition = 0;       // TPC-C clause 3.3.2.x
  std::string description;
  bool passed = false;
  std::string detail;      // first violation, if any
};

// The conditions check_consistency reports, in its order: every one that
// needs no scan of HISTORY (a heap without a key).
inline constexpr std::array<int, 8> kCheckedConditions = {1, 2, 3, 4, 5, 6, 7, 12};

}  // namespace dbrepro::tpcc
