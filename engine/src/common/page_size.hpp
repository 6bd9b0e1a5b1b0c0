#pragma once
// The one page-size rule: a power of two (frames and offsets are shifts and
// masks) within the caller's bounds. The bounds differ because the things
// sized differ, and each is named here once:
//   kMinPageSize   1024   a TPC-C page (E1's and E5's page stores and pools):
//                         a B-tree node holds several customer rows (c_data
//                         alone is 500 bytes);
//   kMinBlockSize   512   any cached block (the page cache): E2's key cache
//                         blocks start at MyISAM's key_cache_block_size
//                         minimum, which is also the sector an O_DIRECT read
//                         must be a multiple of;
//   kMaxPageSize  65536   the run setting's ceiling (driver/tpcc/run_config.cpp);
//   key cache blocks: MyISAM's range, 512..16384 (keycache/key_cache.cpp).
// The stores themselves take any larger power of two (kNoMaxPageSize).
#include <limits>
#include <stdexcept>
#include <string>

#include "common/types.hpp"

namespace dbrepro {

inline constexpr u64 kMinPageSize = 1024;
inline constexpr u64 kMinBlockSize = 512;
inline constexpr u64 kMaxPageSize = 65536;
inline constexpr u64 kMaxKeyBlockSize = 16384;
inline constexpr u64 kNoMaxPageSize = std::numeric_limits<u32>::max();

inline constexpr bool valid_page_size(u64 size, u64 lo, u64 hi) {
  return size >= lo && size <= hi && (size & (size - 1)) == 0;
}

// Throws std::invalid_argument "NAME: must be a power of two in LO..HI, got SIZE"
// (">= LO" without a ceiling); `also` prefixes another accepted value's words.
[[noreturn]] void page_size_error(const char* name, u64 size, u64 lo, u64 hi, const char* also);

// The test inline, the message out of line: the pools' constructors stay as
// small as when each wrote its own check (their inlining feeds E1's counts).
inline void check_page_size(const char* name, u64 size, u64 lo = kMinPageSize, u64 hi = kNoMaxPageSize,
                            const char* also = "") {
  if (!valid_page_size(size, lo, hi)) page_size_error(name, size, lo, hi, also);
}

}  // namespace dbrepro
