#pragma once
// The phases of a transaction in "OLTP through the looking glass" (Figures 5
// and 6). Every engine call belongs to one; what no call covers is "other".
#include <array>

#include "common/types.hpp"

namespace dbrepro {

enum class Phase : int { kBegin = 0, kLookup, kPin, kUpdate, kCreate, kInsert, kCommit, kOther };
inline constexpr int kPhaseCount = 8;
inline constexpr std::array<const char*, kPhaseCount> kPhaseNames = {
    "begin", "lookup", "pin_unpin", "update", "create", "insert", "commit", "other"};

}  // namespace dbrepro
