#pragma once
// A record id names a record by its page and its slot in that page's slot
// array; it packs into the 64-bit value a B+tree leaf stores.
#include "common/types.hpp"

namespace dbrepro {

struct RecordId {
  PageId page = kInvalidPage;
  u16 slot = 0;

  u64 pack() const { return (static_cast<u64>(page) << 16) | slot; }
  static RecordId unpack(u64 v) { return RecordId{static_cast<PageId>(v >> 16), static_cast<u16>(v & 0xFFFF)}; }
  friend bool operator==(const RecordId&, const RecordId&) = default;
};

}  // namespace dbrepro
