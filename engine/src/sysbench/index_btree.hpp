#pragma once
// A MyISAM-like B-tree in an index file, bulk-loaded once and then read only
// through the key cache. Every block, leaf or inner, is a header and a sorted
// array of (key, value) entries: in a leaf the value is a row position, in an
// inner block it is a child block and the key is that child's first key.
#include <cstring>
#include <utility>
#include <vector>

#include "common/types.hpp"
#include "keycache/block_file.hpp"
#include "keycache/key_cache.hpp"

namespace dbrepro::sysbench {

struct BlockHeader {
  u16 count;
  u16 level;  // 0 = leaf
  u32 next;   // next leaf, kNoBlock at the end
};
#pragma pack(push, 1)
struct IndexEntry {
  u64 key;
  u32 value;
};
#pragma pack(pop)
inline constexpr u32 kNoBlock = ~u32{0};

struct IndexRoot {
  u32 root = kNoBlock;
  u32 height = 0;  // levels; 1 = the root is a leaf
};

inline u32 entries_per_block(u32 block_size) { return (block_size - sizeof(BlockHeader)) / sizeof(IndexEntry); }

// Writes the tree of `sorted` (keys ascending, unique) from block `*next_block` on.
IndexRoot bulk_load(keycache::BlockFile& file, u32* next_block, const std::vector<IndexEntry>& sorted);

// Calls fn(key, value) for each entry with key >= from, in key order, until fn returns false.
template <class Fn>
void scan_from(keycache::KeyCache& cache, const keycache::BlockFile& file, u32 file_id, IndexRoot root, u64 from,
               std::byte* scratch, Fn&& fn) {
  if (root.root == kNoBlock) return;
  const u32 block_size = file.block_size();
  u32 block = root.root;
  auto header = [&] { BlockHeader h; std::memcpy(&h, scratch, sizeof h); return h; };
  auto entry = [&](u32 i) {
    IndexEntry e;
    std::memcpy(&e, scratch + sizeof(BlockHeader) + i * sizeof(IndexEntry), sizeof e);
    return e;
  };
  for (;;) {
    cache.read(file, file_id, block, scratch);
    const BlockHeader h = header();
    if (h.level == 0) break;
    // Last child whose first key <= from (or the first child).
    u32 lo = 0, hi = h.count;
    while (hi - lo > 1) {
      const u32 mid = (lo + hi) / 2;
      if (entry(mid).key <= from) lo = mid; else hi = mid;
    }
    block = entry(lo).value;
  }
  (void)block_size;
  for (;;) {
    const BlockHeader h = header();
    u32 lo = 0, hi = h.count;  // first entry >= from
    while (lo < hi) {
      const u32 mid = (lo + hi) / 2;
      if (entry(mid).key < from) lo = mid + 1; else hi = mid;
    }
    for (u32 i = lo; i < h.count; ++i) {
      const IndexEntry e = entry(i);
      if (!fn(e.key, e.value)) return;
    }
    if (h.next == kNoBlock) return;
    cache.read(file, file_id, h.next, scratch);
  }
}

}  // namespace dbrepro::sysbench
