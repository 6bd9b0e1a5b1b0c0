#pragma once
// Structural invariants of a BTree, checked by walking its pages: each node a
// well-formed slotted page (slots point at distinct, aligned records inside
// the record heap, which does not overlap the slot array), keys
// strictly ascending inside a node and within their parent's separator bounds,
// levels counting down to 0 at uniform leaf depth, inner nodes never empty,
// the leaf chain visiting every leaf in key order, and size() matching the
// leaves. The one checker: the GoogleTests (engine/tests/test_btree.cpp) and
// the fuzz target (engine/fuzz/fuzz_btree.cpp) both call it. Keys are compared
// as u64, the order of keys made by KeyLayout::pack.
#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "btree/node.hpp"
#include "buffer/page_guard.hpp"
#include "common/types.hpp"
#include "latch/latch.hpp"

namespace dbrepro {

// What the walk saw, for tests that look at the tree's shape.
struct TreeShape {
  std::vector<PageId> leaves;  // in key order
  u64 entries = 0;
  u64 empty_leaves = 0;
  u64 inner_nodes = 0;
};

template <class Tree, class Pages>
class BTreeInvariants {
 public:
  BTreeInvariants(Tree& tree, Pages& pages) : tree_(tree), pages_(pages) {}

  // The first violation, or an empty string.
  std::string check() {
    std::string error = walk(tree_.root(), tree_.height() - 1, std::nullopt, std::nullopt);
    if (!error.empty()) return error;
    if (shape_.entries != tree_.size())
      return "leaves hold " + std::to_string(shape_.entries) + " entries, size() says " + std::to_string(tree_.size());
    const auto& leaves = shape_.leaves;
    for (size_t i = 0; i < leaves.size(); ++i) {
      const PageId expect = i + 1 < leaves.size() ? leaves[i + 1] : kInvalidPage;
      const PageId next = read_node(leaves[i]).next;
      if (next != expect) return "leaf " + std::to_string(leaves[i]) + " links to " + std::to_string(next);
    }
    return {};
  }

  const TreeShape& shape() const { return shape_; }

 private:
  struct Copy {  // a node's contents, read under a shared fix
    NodeHeader header;
    std::vector<u64> keys, values;  // values: a leaf's values, an inner node's count + 1 children
    PageId next;
    std::string layout_error;       // the slotted page's own damage, if any
  };

  Copy read_node(PageId pid) {
    const SharedGuard<Pages> guard(pages_, pid);
    const Node n(guard.page(), tree_.node_capacity());
    Copy copy{n.header(), {}, {}, n.header().next, slot_error(n)};
    if (copy.layout_error.empty()) {
      for (u32 i = 0; i < n.count(); ++i) copy.keys.push_back(n.key_at(i));
      if (!n.is_leaf()) copy.values.push_back(n.child(0));
      for (u32 i = 0; i < n.count(); ++i) copy.values.push_back(n.is_leaf() ? n.value_at(i) : n.child(i + 1));
    }
    return copy;
  }

  static std::string slot_error(const Node& n) {
    if (n.count() > n.capacity()) return "count above capacity";
    const u32 heap_end = Node::heap_end_for(n.capacity());
    const u32 heap_begin = n.header().heap_begin;
    if (heap_begin > heap_end || heap_begin < sizeof(NodeHeader) + n.count() * sizeof(Node::Slot) ||
        (heap_end - heap_begin) % sizeof(Node::Record) != 0)
      return "record heap overlaps the slot array, ends past the page or is not whole records";
    std::set<u32> records;
    for (u32 i = 0; i < n.count(); ++i) {
      const u32 offset = n.slot(i);
      if (offset < heap_begin || offset + sizeof(Node::Record) > heap_end || (heap_end - offset) % sizeof(Node::Record) != 0)
        return "slot " + std::to_string(i) + " points outside the record heap";
      if (!records.insert(offset).second) return "two slots share a record";
    }
    return {};
  }

  std::string walk(PageId pid, int level, std::optional<u64> lo, std::optional<u64> hi) {
    const std::string at = "page " + std::to_string(pid) + ": ";
    if (pid >= pages_.page_count()) return at + "out of range";
    if (!seen_.insert(pid).second) return at + "reached twice";
    const Copy node = read_node(pid);
    if (!node.layout_error.empty()) return at + node.layout_error;
    if (node.header.level != level) return at + "level " + std::to_string(node.header.level) + ", expected " + std::to_string(level);
    if ((node.header.is_leaf != 0) != (level == 0)) return at + "leaf flag does not match level";
    for (size_t i = 0; i < node.keys.size(); ++i) {
      const u64 k = node.keys[i];
      if (i > 0 && !(node.keys[i - 1] < k)) return at + "keys not strictly ascending";
      if ((lo && k < *lo) || (hi && k >= *hi)) return at + "key outside its parent's bounds";
    }
    if (level == 0) {
      shape_.leaves.push_back(pid);
      shape_.entries += node.keys.size();
      if (node.keys.empty()) ++shape_.empty_leaves;
      return {};
    }
    if (node.keys.empty()) return at + "inner node without keys";
    ++shape_.inner_nodes;
    for (size_t i = 0; i <= node.keys.size(); ++i) {
      const std::optional<u64> child_lo = i == 0 ? lo : std::optional<u64>(node.keys[i - 1]);
      const std::optional<u64> child_hi = i == node.keys.size() ? hi : std::optional<u64>(node.keys[i]);
      std::string error = walk(static_cast<PageId>(node.values[i]), level - 1, child_lo, child_hi);
      if (!error.empty()) return error;
    }
    return {};
  }

  Tree& tree_;
  Pages& pages_;
  std::set<PageId> seen_;
  TreeShape shape_;
};

}  // namespace dbrepro
