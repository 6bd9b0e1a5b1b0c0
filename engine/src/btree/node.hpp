#pragma once
// On-page layout of a B+tree node: a slotted page, as Shore's B-tree pages
// are (btree_p on top of page_p's slotted page). A header, then a slot array
// of 2-byte record offsets kept in key order, growing forward; the records
// (key + value, 16 bytes) in a heap growing backward from the end of the page.
//
//   [NodeHeader | slot 0 | slot 1 | ... ->   free   <- ... | record | record]
//                                                        heap_begin      heap_end
//
// An insert writes its record into the free space and moves only the slots
// after it (2 bytes each, where a sorted array of entries moves 16); an erase
// removes the slot and leaves the record's bytes behind, reclaimed by
// compacting the heap when an insert finds no contiguous room (page_p's
// compress). A split moves records to the new page.
//
// Leaf record i: (key i, value i). Inner node: Shore's pid0, the child left of
// every key, is in the header (first_child); record i is (key i, child right
// of key i), so an inner node of count keys has count + 1 children and inserts
// a separator with the child to its right in one record.
//
// Unlike storage/slotted_page.hpp (record pages: a record keeps its slot for
// life, so record ids stay valid), slots here move with key order.
#include <bit>
#include <cstring>

#include "btree/key.hpp"
#include "common/types.hpp"

namespace dbrepro {

struct NodeHeader {
  u8 is_leaf;
  u8 level;         // 0 for leaves, parent = child + 1
  u16 count;        // slots (keys) in use
  PageId next;      // right sibling (leaves only; kInvalidPage at the end)
  u64 lsn;          // LSN of the last change (page LSN bookkeeping; log/page_lsn.hpp reads byte 8)
  PageId first_child;  // inner nodes: the child left of key 0 (Shore's pid0)
  u16 heap_begin;   // first byte of the record heap (it grows down from heap_end)
  u16 reserved;
};
static_assert(sizeof(NodeHeader) == 24);

class Node {
 public:
  struct Record {
    PackedKey key;
    u64 value;
  };
  static_assert(sizeof(Record) == 16);
  using Slot = u16;
  static constexpr u32 kEntryBytes = sizeof(Slot) + sizeof(Record);

  Node(std::byte* page, u32 capacity) : page_(page), capacity_(capacity) {}

  // Where the record heap ends: the smallest 16-byte boundary that leaves room
  // for `capacity` slots and records after the header. A function of the
  // capacity alone, so a node needs no page size.
  static constexpr u32 heap_end_for(u32 capacity) {
    return (static_cast<u32>(sizeof(NodeHeader)) + capacity * kEntryBytes + 15) & ~15u;
  }
  // Entries a node of page_size bytes holds (slot offsets are u16: a 64 KB
  // page's heap ends before 0xFFF0).
  static constexpr u32 capacity_for(u32 page_size) {
    const u32 limit = page_size < 0xFFF0 ? page_size : 0xFFF0;
    u32 cap = (limit - static_cast<u32>(sizeof(NodeHeader))) / kEntryBytes;
    while (heap_end_for(cap) > limit) --cap;
    return cap;
  }

  NodeHeader& header() const { return *reinterpret_cast<NodeHeader*>(page_); }
  bool is_leaf() const { return header().is_leaf != 0; }
  u32 count() const { return header().count; }
  bool full() const { return header().count >= capacity_; }
  u32 capacity() const { return capacity_; }

  PackedKey key_at(u32 i) const { return record(i).key; }
  u64 value_at(u32 i) const { return record(i).value; }
  void set_value(u32 i, u64 value) { record(i).value = value; }
  // Inner nodes: child i of count + 1 (child 0 is first_child, child i + 1
  // the value of record i).
  PageId child(u32 i) const { return i == 0 ? header().first_child : static_cast<PageId>(value_at(i - 1)); }
  Slot slot(u32 i) const { return slots()[i]; }

  void init(bool leaf) {
    header() = NodeHeader{static_cast<u8>(leaf ? 1 : 0), 0, 0, kInvalidPage, 0, kInvalidPage,
                          static_cast<u16>(heap_end_for(capacity_)), 0};
  }

  // Writes (key, value) into free space and makes it slot pos, moving the
  // slots from pos on; the caller checked !full(). Inner nodes: value is the
  // child right of key.
  void insert_at(u32 pos, PackedKey key, u64 value) {
    NodeHeader& h = header();
    const u32 n = h.count;
    if (h.heap_begin < sizeof(NodeHeader) + (n + 1) * sizeof(Slot) + sizeof(Record)) compact();
    h.heap_begin = static_cast<u16>(h.heap_begin - sizeof(Record));
    *reinterpret_cast<Record*>(page_ + h.heap_begin) = Record{key, value};
    Slot* s = slots();
    std::memmove(s + pos + 1, s + pos, (n - pos) * sizeof(Slot));
    s[pos] = h.heap_begin;
    h.count = static_cast<u16>(n + 1);
  }

  void append(PackedKey key, u64 value) { insert_at(count(), key, value); }

  // Removes slot pos; its record's bytes stay until compaction (an empty node
  // takes its whole heap back at once).
  void erase_at(u32 pos) {
    NodeHeader& h = header();
    const u32 n = h.count - 1;
    Slot* s = slots();
    std::memmove(s + pos, s + pos + 1, (n - pos) * sizeof(Slot));
    h.count = static_cast<u16>(n);
    if (n == 0) h.heap_begin = static_cast<u16>(heap_end_for(capacity_));
  }

  // Split: moves the records of slots [from, count) to `right` (an empty
  // node), in order. If they were the heap's lowest records (a node filled in
  // key order, by bulk load or ascending inserts, keeps its highest keys
  // there) their space comes back at once; else a later compaction takes it.
  void move_to(Node& right, u32 from) {
    NodeHeader& h = header();
    const u32 n = h.count;
    u32 highest = 0;
    for (u32 i = from; i < n; ++i) {
      right.append(key_at(i), value_at(i));
      highest = slot(i) > highest ? slot(i) : highest;
    }
    h.count = static_cast<u16>(from);
    const u32 moved_bytes = (n - from) * static_cast<u32>(sizeof(Record));
    if (highest < h.heap_begin + moved_bytes) h.heap_begin = static_cast<u16>(h.heap_begin + moved_bytes);
  }

 private:
  Slot* slots() const { return reinterpret_cast<Slot*>(page_ + sizeof(NodeHeader)); }
  Record& record(u32 i) const { return *reinterpret_cast<Record*>(page_ + slots()[i]); }

  // Makes the free space contiguous again (page_p's compress): the heap's
  // new start leaves room for exactly count records; the live records below
  // it move into the holes above it (records are fixed size, so there are as
  // many holes as records to move). Records already above it stay, so the
  // common case after a split of ascending inserts (the moved records were
  // the newest, lowest ones) moves nothing.
  [[gnu::noinline]] void compact() {
    NodeHeader& h = header();
    const u32 n = h.count;
    const u32 end = heap_end_for(capacity_);
    const u32 begin = end - n * static_cast<u32>(sizeof(Record));
    constexpr u32 kMaxRecords = 0xFFF0 / sizeof(Record);
    u64 kept[(kMaxRecords + 63) / 64];  // bit c: record c of [begin, end) is live
    const u32 words = (n + 63) / 64;
    std::memset(kept, 0, words * sizeof(u64));
    Slot* s = slots();
    for (u32 i = 0; i < n; ++i) {
      if (s[i] < begin) continue;
      const u32 c = (s[i] - begin) / static_cast<u32>(sizeof(Record));
      kept[c / 64] |= u64{1} << (c % 64);
    }
    u32 word = 0;
    for (u32 i = 0; i < n; ++i) {
      if (s[i] >= begin) continue;
      while (kept[word] == ~u64{0}) ++word;
      const u32 c = word * 64 + static_cast<u32>(std::countr_one(kept[word]));
      kept[word] |= u64{1} << (c % 64);
      const u32 to = begin + c * static_cast<u32>(sizeof(Record));
      std::memcpy(page_ + to, page_ + s[i], sizeof(Record));
      s[i] = static_cast<Slot>(to);
    }
    h.heap_begin = static_cast<u16>(begin);
  }

  std::byte* page_;
  u32 capacity_;
};

}  // namespace dbrepro
