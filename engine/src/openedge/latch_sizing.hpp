#pragma once
// How many latches guard the buffer pool's hash table (BHT): up to OpenEdge
// 11.7 a fixed count, 1024 ("Prior to this release, the number of latches
// was fixed at 1024": OpenEdge 11.7 SP3 New Information, "Buffer Hash Table
// concurrency", documentation.progress.com/output/oe117sp/gssp3/
// buffer-hash-table-concurrency.html); from 11.7.3 on a percentage of the
// buckets, rounded down (-hashLatchFactor: 5..100, default 10, at least 2
// latches; the article ran 100). Either way bucket b uses latch b mod L, so
// the choice is made once, when the table is built, and costs nothing after.
#include <algorithm>
#include <stdexcept>
#include <string>

#include "common/types.hpp"

namespace dbrepro::openedge {

struct LatchSizing {
  enum class Kind : u8 { kFixed, kFactor };
  Kind kind = Kind::kFixed;
  u32 value = 1;  // a count (kFixed) or a percentage of the buckets (kFactor)

  static LatchSizing fixed(u32 count) { return {Kind::kFixed, count}; }
  static LatchSizing factor(u32 percent) { return {Kind::kFactor, percent}; }

  u32 latches_for(u32 buckets) const {
    const u64 n = kind == Kind::kFixed ? value : u64{buckets} * value / 100;
    const u64 least = kind == Kind::kFixed ? 1 : 2;
    return static_cast<u32>(std::clamp<u64>(n, std::min<u64>(least, buckets), buckets));
  }
  std::string describe() const {
    return kind == Kind::kFixed ? "fixed " + std::to_string(value) : "factor " + std::to_string(value) + "%";
  }
};

inline void validate(const LatchSizing& sizing) {
  if (sizing.kind == LatchSizing::Kind::kFactor && (sizing.value < 5 || sizing.value > 100))
    throw std::invalid_argument("latch_factor: must be a percentage in 5..100 (-hashLatchFactor), got " +
                                std::to_string(sizing.value));
  if (sizing.kind == LatchSizing::Kind::kFixed && (sizing.value < 1 || sizing.value > (1u << 20)))
    throw std::invalid_argument("fixed_latches: must be in 1..1048576, got " + std::to_string(sizing.value));
}

}  // namespace dbrepro::openedge
