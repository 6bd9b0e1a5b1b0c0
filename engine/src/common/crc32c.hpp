#pragma once
// CRC-32C (Castagnoli), the checksum of log records and snapshot blocks, as
// in PostgreSQL's WAL and RocksDB's log: the SSE4.2 crc32 instruction where
// the CPU has it (chosen once, at first use), else a byte-wise table.
// crc32c_extend(crc, ...) continues a checksum over more bytes, so a record
// can be summed in pieces: crc32c(a+b) == crc32c_extend(crc32c(a), b).
#include <array>
#include <cstring>

#include "common/types.hpp"

#if defined(__x86_64__)
#include <nmmintrin.h>
#endif

namespace dbrepro {

namespace crc32c_detail {

inline constexpr u32 kPolynomial = 0x82F63B78u;  // reflected 0x1EDC6F41

constexpr std::array<u32, 256> make_table() {
  std::array<u32, 256> table{};
  for (u32 i = 0; i < 256; ++i) {
    u32 c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ kPolynomial : c >> 1;
    table[i] = c;
  }
  return table;
}
inline constexpr std::array<u32, 256> kTable = make_table();

// On the raw (not inverted) register.
inline u32 software(u32 crc, const unsigned char* p, size_t n) {
  while (n--) crc = kTable[(crc ^ *p++) & 0xFF] ^ (crc >> 8);
  return crc;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) inline u32 hardware(u32 crc, const unsigned char* p, size_t n) {
  u64 c = crc;
  while (n >= 8) {
    u64 word;
    std::memcpy(&word, p, sizeof(word));
    c = _mm_crc32_u64(c, word);
    p += 8;
    n -= 8;
  }
  u32 c32 = static_cast<u32>(c);
  while (n--) c32 = _mm_crc32_u8(c32, *p++);
  return c32;
}
inline bool has_hardware() {
  static const bool has = __builtin_cpu_supports("sse4.2");
  return has;
}
#endif

}  // namespace crc32c_detail

inline u32 crc32c_extend(u32 crc, const void* data, size_t n) {
  const auto* p = static_cast<const unsigned char*>(data);
  u32 c = ~crc;
#if defined(__x86_64__)
  if (crc32c_detail::has_hardware()) return ~crc32c_detail::hardware(c, p, n);
#endif
  return ~crc32c_detail::software(c, p, n);
}

inline u32 crc32c(const void* data, size_t n) { return crc32c_extend(0, data, n); }

}  // namespace dbrepro
