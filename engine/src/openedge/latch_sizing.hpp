#pragma once
// How many latches guard the buffer pool's hash table: OpenEdge 11 took a
// fixed count (1, 4, 256, 1024); OpenEdge 12 a percentage of the buckets
// (-latchHashFactor, default 10%). Either way bucket b uses latch b mod L, so
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
    return static_cast<u32>(std::clamp<u64>(n, 1, buckets));
  }
  std::string describe() const {
    return kind == Kind::kFixed ? "fixed " + std::to_string(value) : "factor " + std::to_string(value) + "%";
  }
};

inline void validate(const LatchSizing& sizing) {
  if (sizing.kind == LatchSizing::Kind::kFactor && (sizing.value < 1 || sizing.value > 100))
    throw std::invalid_argument("latch_factor: must be a percentage in 1..100, got " + std::to_string(sizing.value));
  if (sizing.kind == LatchSizing::Kind::kFixed && (sizing.value < 1 || sizing.value > (1u << 20)))
    throw std::invalid_argument("fixed_latches: must be in 1..1048576, got " + std::to_string(sizing.value));
}

}  // namespace dbrepro::openedge
