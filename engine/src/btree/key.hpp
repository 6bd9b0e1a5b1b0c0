#pragma once
// Composite integer keys. Every index key is a tuple of unsigned integer
// fields packed, most significant field first, into one 64-bit word, so that
// the packed order is the tuple order. A KeyLayout describes the fields; it is
// what a generic, descriptor-driven comparison interprets on every compare.
#include <array>
#include <initializer_list>
#include <stdexcept>
#include <string>

#include "common/types.hpp"

namespace dbrepro {

using PackedKey = u64;

struct KeyLayout {
  static constexpr int kMaxFields = 6;
  int field_count = 0;
  std::array<u8, kMaxFields> bits{};   // width of each field, most significant first
  std::array<u8, kMaxFields> shift{};  // bit offset of each field in the packed word

  constexpr KeyLayout() = default;
  constexpr KeyLayout(std::initializer_list<int> widths) {
    if (widths.size() > kMaxFields) throw std::invalid_argument("key: more than 6 fields");
    int total = 0;
    for (int w : widths) {
      if (w < 1 || w > 64) throw std::invalid_argument("key: field width outside 1..64");
      bits[field_count++] = static_cast<u8>(w);
      total += w;
    }
    if (total > 64) throw std::invalid_argument("key: fields wider than 64 bits in all");
    int offset = total;
    for (int i = 0; i < field_count; ++i) {
      offset -= bits[i];
      shift[i] = static_cast<u8>(offset);
    }
  }

  constexpr int total_bits() const {
    int t = 0;
    for (int i = 0; i < field_count; ++i) t += bits[i];
    return t;
  }

  constexpr u64 mask(int i) const { return bits[i] == 64 ? ~u64{0} : ((u64{1} << bits[i]) - 1); }

  // Packs fields; throws if a field does not fit its width.
  PackedKey pack(std::initializer_list<u64> fields) const {
    if (static_cast<int>(fields.size()) != field_count) throw std::invalid_argument("key: wrong field count");
    PackedKey key = 0;
    int i = 0;
    for (u64 f : fields) {
      if (f > mask(i)) throw std::out_of_range("key field " + std::to_string(i) + " does not fit in " +
                                               std::to_string(bits[i]) + " bits");
      key |= f << shift[i];
      ++i;
    }
    return key;
  }

  constexpr u64 field(PackedKey key, int i) const { return (key >> shift[i]) & mask(i); }
};

// Generic key evaluation: walks the key descriptor field by field, as a
// general-purpose engine does for keys whose types it learns at run time.
struct GenericKeyCompare {
  static constexpr const char* kName = "generic";
  static int compare(const KeyLayout& layout, PackedKey a, PackedKey b) {
    for (int i = 0; i < layout.field_count; ++i) {
      const u64 fa = layout.field(a, i);
      const u64 fb = layout.field(b, i);
      if (fa != fb) return fa < fb ? -1 : 1;
    }
    return 0;
  }
  static bool less(const KeyLayout& layout, PackedKey a, PackedKey b) { return compare(layout, a, b) < 0; }
};

// Hand-coded node search for uncompressed integer keys: one machine compare.
struct IntegerKeyCompare {
  static constexpr const char* kName = "integer";
  static int compare(const KeyLayout&, PackedKey a, PackedKey b) { return (a > b) - (a < b); }
  static bool less(const KeyLayout&, PackedKey a, PackedKey b) { return a < b; }
};

}  // namespace dbrepro
