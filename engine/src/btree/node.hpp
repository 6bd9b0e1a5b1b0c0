#pragma once
// On-page layout of a B+tree node: a small header, then a sorted array of
// packed keys, then the values (leaf: record ids / payloads; inner: child page
// ids, one more than keys). One layout for both kinds keeps splits simple.
#include <cstring>

#include "btree/key.hpp"
#include "common/types.hpp"

namespace dbrepro {

struct NodeHeader {
  u8 is_leaf;
  u8 level;        // 0 for leaves, parent = child + 1
  u16 count;       // keys in use
  PageId next;     // right sibling (leaves only; kInvalidPage at the end)
  u64 lsn;         // LSN of the last change (page LSN bookkeeping)
};
static_assert(sizeof(NodeHeader) == 16);

class Node {
 public:
  Node(std::byte* page, u32 capacity) : page_(page), capacity_(capacity) {}

  // Keys a node of page_size bytes holds: the header, cap keys, cap + 1 values.
  static constexpr u32 capacity_for(u32 page_size) {
    return static_cast<u32>((page_size - sizeof(NodeHeader) - sizeof(u64)) / (sizeof(PackedKey) + sizeof(u64)));
  }

  NodeHeader& header() const { return *reinterpret_cast<NodeHeader*>(page_); }
  bool is_leaf() const { return header().is_leaf != 0; }
  u32 count() const { return header().count; }
  bool full() const { return header().count >= capacity_; }
  u32 capacity() const { return capacity_; }

  PackedKey* keys() const { return reinterpret_cast<PackedKey*>(page_ + sizeof(NodeHeader)); }
  u64* values() const { return reinterpret_cast<u64*>(page_ + sizeof(NodeHeader) + capacity_ * sizeof(PackedKey)); }

  void init(bool leaf) {
    header() = NodeHeader{static_cast<u8>(leaf ? 1 : 0), 0, 0, kInvalidPage, 0};
  }

  // Opens a gap at pos in the key array and (shifted by value_offset) in the
  // value array; inner nodes insert a child to the right of its separator.
  void insert_at(u32 pos, PackedKey key, u64 value, u32 value_offset) {
    const u32 n = count();
    std::memmove(keys() + pos + 1, keys() + pos, (n - pos) * sizeof(PackedKey));
    const u32 vpos = pos + value_offset;
    const u32 vcount = n + value_offset;
    std::memmove(values() + vpos + 1, values() + vpos, (vcount - vpos) * sizeof(u64));
    keys()[pos] = key;
    values()[vpos] = value;
    header().count = static_cast<u16>(n + 1);
  }

  void erase_at(u32 pos) {
    const u32 n = count();
    std::memmove(keys() + pos, keys() + pos + 1, (n - pos - 1) * sizeof(PackedKey));
    std::memmove(values() + pos, values() + pos + 1, (n - pos - 1) * sizeof(u64));
    header().count = static_cast<u16>(n - 1);
  }

 private:
  std::byte* page_;
  u32 capacity_;
};

}  // namespace dbrepro
