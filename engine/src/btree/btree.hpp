#pragma once
// A B+tree over composite integer keys (packed into 64 bits) with 64-bit
// values, stored in pages of a page store. Keys are unique. Node search goes
// through a KeyCompare policy: GenericKeyCompare interprets the key layout on
// every comparison, IntegerKeyCompare compares machine words.
//
// Deletes remove the entry from its leaf and do not merge underfull nodes (as
// many production B-trees do; space is reused by later inserts); cursors step
// over empty leaves.
#include <utility>
#include <vector>

#include "btree/key.hpp"
#include "btree/node.hpp"
#include "common/types.hpp"

namespace dbrepro {

template <class KeyCompare, class Pages>
class BTree {
 public:
  // Forward cursor over leaf entries in key order. It keeps its current leaf
  // fixed (pinned) and releases it when it moves on or goes away.
  class Cursor {
   public:
    Cursor(Cursor&& other) noexcept : tree_(other.tree_), leaf_(other.leaf_), node_(other.node_), pos_(other.pos_) {
      other.leaf_ = kInvalidPage;
    }
    Cursor(const Cursor&) = delete;
    Cursor& operator=(const Cursor&) = delete;
    Cursor& operator=(Cursor&& other) noexcept {
      if (this != &other) {
        if (leaf_ != kInvalidPage) tree_->pages_->unfix(leaf_);
        tree_ = other.tree_;
        leaf_ = other.leaf_;
        node_ = other.node_;
        pos_ = other.pos_;
        other.leaf_ = kInvalidPage;
      }
      return *this;
    }
    ~Cursor() {
      if (leaf_ != kInvalidPage) tree_->pages_->unfix(leaf_);
    }

    bool valid() const { return leaf_ != kInvalidPage; }
    PackedKey key() const { return node_.keys()[pos_]; }
    u64 value() const { return node_.values()[pos_]; }
    void next() {
      ++pos_;
      settle();
    }

   private:
    friend class BTree;
    // Takes over the fix of `leaf` that the caller made.
    Cursor(const BTree* tree, PageId leaf, Node node, u32 pos) : tree_(tree), leaf_(leaf), node_(node), pos_(pos) {
      settle();
    }
    // Moves past the end of this leaf (and empty leaves) to the next entry.
    void settle() {
      while (leaf_ != kInvalidPage && pos_ >= node_.count()) {
        const PageId next = node_.header().next;
        tree_->pages_->unfix(leaf_);
        leaf_ = next;
        pos_ = 0;
        if (leaf_ != kInvalidPage) node_ = tree_->node(leaf_);
      }
    }
    const BTree* tree_;
    PageId leaf_;
    Node node_;
    u32 pos_;
  };

  BTree(Pages& pages, KeyLayout layout)
      : pages_(&pages), layout_(layout), capacity_(Node::capacity_for(pages.page_size())) {
    root_ = pages_->allocate();
    node(root_).init(/*leaf=*/true);
    pages_->unfix(root_);
    height_ = 1;
  }

  const KeyLayout& layout() const { return layout_; }
  PageId root() const { return root_; }
  int height() const { return height_; }
  u64 size() const { return size_; }
  u32 node_capacity() const { return capacity_; }

  bool lookup(PackedKey key, u64* value) const {
    const auto [leaf, n] = find_leaf(key, nullptr);
    const u32 pos = lower_bound(n, key);
    const bool found = pos < n.count() && equal(n.keys()[pos], key);
    if (found && value) *value = n.values()[pos];
    pages_->unfix(leaf);
    return found;
  }

  // Replaces the value of an existing key; false if the key is absent.
  bool update(PackedKey key, u64 value) {
    const auto [leaf, n] = find_leaf(key, nullptr);
    const u32 pos = lower_bound(n, key);
    const bool found = pos < n.count() && equal(n.keys()[pos], key);
    if (found) n.values()[pos] = value;
    pages_->unfix(leaf);
    return found;
  }

  // Inserts a new key; false (and no change) if it is already present.
  bool insert(PackedKey key, u64 value) {
    std::vector<PageId>& path = path_scratch_;
    path.clear();
    auto [leaf, n] = find_leaf(key, &path);
    u32 pos = lower_bound(n, key);
    if (pos < n.count() && equal(n.keys()[pos], key)) {
      pages_->unfix(leaf);
      return false;
    }
    if (!n.full()) {
      n.insert_at(pos, key, value, 0);
      pages_->unfix(leaf);
      ++size_;
      return true;
    }
    // Split the leaf, then push the separator up the path.
    const PageId right = pages_->allocate();
    Node r = node(right);
    r.init(/*leaf=*/true);
    const u32 half = n.count() / 2;
    const u32 moved = n.count() - half;
    std::memcpy(r.keys(), n.keys() + half, moved * sizeof(PackedKey));
    std::memcpy(r.values(), n.values() + half, moved * sizeof(u64));
    r.header().count = static_cast<u16>(moved);
    n.header().count = static_cast<u16>(half);
    r.header().next = n.header().next;
    n.header().next = right;
    const PackedKey separator = r.keys()[0];
    if (less(key, separator)) {
      n.insert_at(lower_bound(n, key), key, value, 0);
    } else {
      r.insert_at(lower_bound(r, key), key, value, 0);
    }
    pages_->unfix(right);
    pages_->unfix(leaf);
    ++size_;
    insert_separator(path, separator, right);
    return true;
  }

  bool erase(PackedKey key) {
    auto [leaf, n] = find_leaf(key, nullptr);
    const u32 pos = lower_bound(n, key);
    const bool found = pos < n.count() && equal(n.keys()[pos], key);
    if (found) {
      n.erase_at(pos);
      --size_;
    }
    pages_->unfix(leaf);
    return found;
  }

  // Cursor at the first entry whose key is >= key.
  Cursor seek(PackedKey key) const {
    const auto [leaf, n] = find_leaf(key, nullptr);
    return Cursor(this, leaf, n, lower_bound(n, key));
  }

  Cursor begin() const { return seek(0); }

 private:
  Node node(PageId pid) const { return Node(pages_->fix(pid), capacity_); }

  bool less(PackedKey a, PackedKey b) const { return KeyCompare::less(layout_, a, b); }
  bool equal(PackedKey a, PackedKey b) const { return KeyCompare::compare(layout_, a, b) == 0; }

  // First position whose key is >= key.
  u32 lower_bound(const Node& n, PackedKey key) const {
    u32 lo = 0, hi = n.count();
    const PackedKey* keys = n.keys();
    while (lo < hi) {
      const u32 mid = (lo + hi) / 2;
      if (less(keys[mid], key)) lo = mid + 1; else hi = mid;
    }
    return lo;
  }

  // First position whose key is > key: the child to descend into.
  u32 upper_bound(const Node& n, PackedKey key) const {
    u32 lo = 0, hi = n.count();
    const PackedKey* keys = n.keys();
    while (lo < hi) {
      const u32 mid = (lo + hi) / 2;
      if (less(key, keys[mid])) hi = mid; else lo = mid + 1;
    }
    return lo;
  }

  // Descends to the leaf that holds key and returns it fixed (the caller
  // unfixes it); records the inner pages on the way.
  std::pair<PageId, Node> find_leaf(PackedKey key, std::vector<PageId>* path) const {
    PageId pid = root_;
    for (;;) {
      Node n = node(pid);
      if (n.is_leaf()) return {pid, n};
      if (path) path->push_back(pid);
      const PageId child = static_cast<PageId>(n.values()[upper_bound(n, key)]);
      pages_->unfix(pid);
      pid = child;
    }
  }

  // Inserts (separator, right child) into the last inner node on path,
  // splitting inner nodes and growing a new root as needed.
  void insert_separator(std::vector<PageId>& path, PackedKey separator, PageId right_child) {
    while (!path.empty()) {
      const PageId pid = path.back();
      path.pop_back();
      Node n = node(pid);
      if (!n.full()) {
        n.insert_at(upper_bound(n, separator), separator, right_child, 1);
        pages_->unfix(pid);
        return;
      }
      // Split: keys[mid] moves up; left keeps keys[0, mid), right gets the rest.
      const PageId right = pages_->allocate();
      Node r = node(right);
      r.init(/*leaf=*/false);
      const u32 count = n.count();
      const u32 mid = count / 2;
      const PackedKey up = n.keys()[mid];
      const u32 moved = count - mid - 1;
      std::memcpy(r.keys(), n.keys() + mid + 1, moved * sizeof(PackedKey));
      std::memcpy(r.values(), n.values() + mid + 1, (moved + 1) * sizeof(u64));
      r.header().count = static_cast<u16>(moved);
      n.header().count = static_cast<u16>(mid);
      if (less(separator, up)) {
        n.insert_at(upper_bound(n, separator), separator, right_child, 1);
      } else {
        r.insert_at(upper_bound(r, separator), separator, right_child, 1);
      }
      pages_->unfix(right);
      pages_->unfix(pid);
      separator = up;
      right_child = right;
    }
    // The root split: a new root with two children.
    const PageId new_root = pages_->allocate();
    Node root = node(new_root);
    root.init(/*leaf=*/false);
    root.keys()[0] = separator;
    root.values()[0] = root_;
    root.values()[1] = right_child;
    root.header().count = 1;
    pages_->unfix(new_root);
    root_ = new_root;
    ++height_;
  }

  Pages* pages_;
  KeyLayout layout_;
  u32 capacity_;
  PageId root_ = kInvalidPage;
  int height_ = 0;
  u64 size_ = 0;
  std::vector<PageId> path_scratch_;
};

}  // namespace dbrepro
