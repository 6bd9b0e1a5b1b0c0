#pragma once
// Bulk load: a BTree (btree.hpp) built bottom-up from entries already sorted
// by key, as databases build an index over existing rows: the leaves are
// filled left to right and linked, then each level above gets one separator
// per child (the child's first key) until one node is left, the root. Every
// page is allocated from the tree's page store in that order and written
// under an exclusive fix. Keys must be unique and strictly increasing.
#include <stdexcept>
#include <string>
#include <vector>

#include "btree/btree.hpp"
#include "btree/node.hpp"
#include "latch/latch.hpp"

namespace dbrepro {

struct BulkLoaded {
  PageId root = kInvalidPage;
  int height = 0;
  u64 size = 0;
  u64 leaves = 0;
};

// `next(key, value)` yields the entries in key order and returns false after
// the last one. `fill` is the share of a node's capacity used (1: full).
template <class Pages, class Source>
BulkLoaded bulk_load(Pages& pages, Source&& next, double fill = 1.0) {
  const u32 capacity = Node::capacity_for(pages.page_size());
  const u32 per_node = std::max<u32>(2, static_cast<u32>(capacity * fill));
  if (fill <= 0 || fill > 1) throw std::invalid_argument("bulk load: fill must be in (0, 1]");
  struct Child {
    PackedKey first;
    PageId pid;
  };
  std::vector<Child> level;
  BulkLoaded out;

  // Leaves, linked left to right.
  PackedKey key = 0;
  u64 value = 0;
  bool more = next(key, value);
  PageId prev = kInvalidPage;
  std::byte* prev_page = nullptr;
  bool have_last = false;
  PackedKey last = 0;
  do {
    const PageId pid = pages.allocate();
    std::byte* page = pages.fix(pid, LatchMode::kExclusive);
    Node n(page, capacity);
    n.init(/*leaf=*/true);
    u32 count = 0;
    for (; more && count < per_node; ++count) {
      if (have_last && key <= last)
        throw std::invalid_argument("bulk load: keys not strictly increasing at entry " + std::to_string(out.size));
      n.keys()[count] = key;
      n.values()[count] = value;
      last = key;
      have_last = true;
      ++out.size;
      more = next(key, value);
    }
    n.header().count = static_cast<u16>(count);
    level.push_back({count ? n.keys()[0] : 0, pid});
    if (prev_page) {
      Node(prev_page, capacity).header().next = pid;
      pages.unfix(prev, prev_page, LatchMode::kExclusive);
    }
    prev = pid;
    prev_page = page;
  } while (more);
  pages.unfix(prev, prev_page, LatchMode::kExclusive);
  out.leaves = level.size();
  out.height = 1;

  // Inner levels: a node takes up to per_node + 1 children; child i > 0 is
  // separated from child i - 1 by its first key.
  while (level.size() > 1) {
    std::vector<Child> above;
    for (size_t i = 0; i < level.size();) {
      const size_t take = std::min<size_t>(per_node + 1, level.size() - i);
      const PageId pid = pages.allocate();
      std::byte* page = pages.fix(pid, LatchMode::kExclusive);
      Node n(page, capacity);
      n.init(/*leaf=*/false);
      n.header().level = static_cast<u8>(out.height);
      n.values()[0] = level[i].pid;
      for (size_t c = 1; c < take; ++c) {
        n.keys()[c - 1] = level[i + c].first;
        n.values()[c] = level[i + c].pid;
      }
      n.header().count = static_cast<u16>(take - 1);
      above.push_back({level[i].first, pid});
      pages.unfix(pid, page, LatchMode::kExclusive);
      i += take;
    }
    level.swap(above);
    ++out.height;
  }
  out.root = level[0].pid;
  return out;
}

}  // namespace dbrepro
