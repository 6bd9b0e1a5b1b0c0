#pragma once
// Fixed-width integer aliases used across the engine.
#include <cstddef>
#include <cstdint>

namespace dbrepro {

using u8 = std::uint8_t;
using u16 = std::uint16_t;
using u32 = std::uint32_t;
using u64 = std::uint64_t;
using i32 = std::int32_t;
using i64 = std::int64_t;

using PageId = u32;
inline constexpr PageId kInvalidPage = ~PageId{0};

// Money is kept in integer cents and rates in basis points (1/10000) so that
// TPC-C's consistency conditions (sums of YTD amounts) hold exactly.
using Cents = i64;
using BasisPoints = i32;

}  // namespace dbrepro
