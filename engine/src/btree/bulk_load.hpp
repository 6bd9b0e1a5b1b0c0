#pragma once
// Bulk load: a B+tree written bottom-up from entries already in key order,
// as an index is built by sorting (MyISAM's repair by sort, LeanStore's and
// most engines' bulk load): leaves filled left to right and chained, then
// each level above from the first keys of the level below, until one node
// is left, the root. Nodes are filled completely (the index is read only
// after, as E2's), so the tree is as small and as shallow as it can be.
// The result opens with BTree's (pages, layout, root, height, size) constructor.
#include <algorithm>
#include <stdexcept>
#include <vector>

#include "btree/key.hpp"
#include "btree/node.hpp"
#include "buffer/page_guard.hpp"
#include "common/types.hpp"
#include "latch/latch.hpp"

namespace dbrepro {

struct BulkEntry {
  PackedKey key;
  u64 value;
};

struct BTreeShape {
  PageId root = kInvalidPage;
  int height = 0;  // levels; 1: the root is a leaf
  u64 size = 0;    // entries
};

// Writes the tree of `sorted` (keys strictly ascending as unsigned words, as
// IntegerKeyCompare orders them) into pages allocated from `pages`.
template <class Pages>
BTreeShape bulk_load(Pages& pages, const std::vector<BulkEntry>& sorted) {
  for (size_t i = 1; i < sorted.size(); ++i)
    if (!(sorted[i - 1].key < sorted[i].key)) throw std::invalid_argument("bulk_load: keys not strictly ascending");
  const u32 capacity = Node::capacity_for(pages.page_size());
  struct Child {
    PackedKey first;
    PageId page;
  };
  std::vector<Child> level;
  // Leaves: each holds `capacity` entries; a leaf stays fixed until the next
  // one is allocated, so that it can point to it.
  ExclusiveGuard<Pages> leaf(pages, pages.allocate());
  Node(leaf.page(), capacity).init(/*leaf=*/true);
  level.push_back({sorted.empty() ? 0 : sorted.front().key, leaf.pid()});
  for (size_t start = 0; start < sorted.size(); start += capacity) {
    if (start > 0) {
      ExclusiveGuard<Pages> next(pages, pages.allocate());
      Node(next.page(), capacity).init(/*leaf=*/true);
      Node(leaf.page(), capacity).header().next = next.pid();
      leaf = std::move(next);  // lets the previous leaf go
      level.push_back({sorted[start].key, leaf.pid()});
    }
    Node n(leaf.page(), capacity);
    const u32 count = static_cast<u32>(std::min<size_t>(capacity, sorted.size() - start));
    for (u32 i = 0; i < count; ++i) n.append(sorted[start + i].key, sorted[start + i].value);
  }
  leaf.release();
  // Inner levels: a node of c keys has c + 1 children; key i is the first key of child i + 1.
  int height = 1;
  while (level.size() > 1) {
    std::vector<Child> above;
    for (size_t start = 0; start < level.size();) {
      // Full nodes; a last node of one child (no key) gives one of its
      // neighbour's children to it instead.
      size_t children = std::min<size_t>(capacity + 1, level.size() - start);
      if (level.size() - start - children == 1) --children;
      const PageId inner = pages.allocate();
      {
        ExclusiveGuard<Pages> inner_guard(pages, inner);
        Node n(inner_guard.page(), capacity);
        n.init(/*leaf=*/false);
        n.header().level = static_cast<u8>(height);
        n.header().first_child = level[start].page;
        for (size_t c = 1; c < children; ++c) n.append(level[start + c].first, level[start + c].page);
      }
      above.push_back({level[start].first, inner});
      start += children;
    }
    level.swap(above);
    ++height;
  }
  return {level.front().page, height, sorted.size()};
}

}  // namespace dbrepro
