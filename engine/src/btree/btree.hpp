#pragma once
// A B+tree over composite integer keys (packed into 64 bits) with 64-bit
// values, stored in pages of a page store. Keys are unique.
//
// Policies:
//  - KeyCompare: node search. GenericKeyCompare interprets the key layout on
//    every comparison; IntegerKeyCompare compares machine words.
//  - Pages: fix(pid, mode) / unfix(pid, page, mode) / allocate(). Page
//    latches live there; with NoLatching they cost nothing.
//  - Stamp: page LSN bookkeeping on modified nodes (PageLsn or NoLsn).
//
// Concurrency: readers descend with shared latch coupling; writers with
// exclusive coupling, releasing the ancestors as soon as a child cannot
// split ("safe" node), so a split only touches latched nodes.
//
// Deletes remove the entry from its leaf and do not merge underfull nodes (as
// many production B-trees do; space is reused by later inserts); cursors step
// over empty leaves.
#include <atomic>
#include <utility>
#include <vector>

#include "btree/key.hpp"
#include "btree/node.hpp"
#include "common/types.hpp"
#include "latch/latch.hpp"

namespace dbrepro {

struct NoStamp {
  static void stamp(std::byte*, u64) {}
};

template <class KeyCompare, class Pages, class Stamp = NoStamp>
class BTree {
 public:
  // Forward cursor over leaf entries in key order. It keeps its current leaf
  // fixed with a shared latch and releases it when it moves on or goes away.
  class Cursor {
   public:
    Cursor(Cursor&& other) noexcept : tree_(other.tree_), leaf_(other.leaf_), page_(other.page_), pos_(other.pos_) {
      other.leaf_ = kInvalidPage;
    }
    Cursor& operator=(Cursor&& other) noexcept {
      if (this != &other) {
        release();
        tree_ = other.tree_;
        leaf_ = other.leaf_;
        page_ = other.page_;
        pos_ = other.pos_;
        other.leaf_ = kInvalidPage;
      }
      return *this;
    }
    Cursor(const Cursor&) = delete;
    Cursor& operator=(const Cursor&) = delete;
    ~Cursor() { release(); }

    bool valid() const { return leaf_ != kInvalidPage; }
    PackedKey key() const { return node().key_at(pos_); }
    u64 value() const { return node().value_at(pos_); }
    void next() {
      ++pos_;
      settle();
    }

   private:
    friend class BTree;
    // Takes over the shared fix of `leaf` that the caller made.
    Cursor(BTree* tree, PageId leaf, std::byte* page, u32 pos) : tree_(tree), leaf_(leaf), page_(page), pos_(pos) {
      settle();
    }
    Node node() const { return Node(page_, tree_->capacity_); }
    // Moves past the end of this leaf (and empty leaves) to the next entry;
    // latch coupling left to right: fix the sibling, then release this leaf.
    void settle() {
      while (leaf_ != kInvalidPage && pos_ >= node().count()) {
        const PageId next = node().header().next;
        std::byte* next_page = next != kInvalidPage ? tree_->pages_->fix(next, LatchMode::kShared) : nullptr;
        tree_->pages_->unfix(leaf_, page_, LatchMode::kShared);
        leaf_ = next;
        page_ = next_page;
        pos_ = 0;
      }
    }
    void release() {
      if (leaf_ != kInvalidPage) tree_->pages_->unfix(leaf_, page_, LatchMode::kShared);
      leaf_ = kInvalidPage;
    }
    BTree* tree_;
    PageId leaf_;
    std::byte* page_;
    u32 pos_;
  };

  using Compare = KeyCompare;
  using PageStore = Pages;

  // A tree that is already in `pages` (bulk_load.hpp built it, or another
  // instance over the same file did): nothing is allocated.
  BTree(Pages& pages, KeyLayout layout, PageId root, int height, u64 size)
      : pages_(&pages), layout_(layout), capacity_(Node::capacity_for(pages.page_size())), root_(root),
        height_(height), size_(size) {}

  BTree(Pages& pages, KeyLayout layout)
      : pages_(&pages), layout_(layout), capacity_(Node::capacity_for(pages.page_size())) {
    const PageId root = pages_->allocate();
    std::byte* page = pages_->fix(root, LatchMode::kExclusive);
    Node(page, capacity_).init(/*leaf=*/true);
    pages_->unfix(root, page, LatchMode::kExclusive);
    root_.store(root);
    height_ = 1;
  }

  const KeyLayout& layout() const { return layout_; }
  PageId root() const { return root_.load(std::memory_order_acquire); }
  int height() const { return height_.load(std::memory_order_relaxed); }
  u64 size() const { return size_.load(std::memory_order_relaxed); }
  u32 node_capacity() const { return capacity_; }

  bool lookup(PackedKey key, u64* value) {
    const Fixed leaf = descend_shared(key);
    const Node n = node(leaf.page);
    const u32 pos = lower_bound(n, key);
    const bool found = pos < n.count() && equal(n.key_at(pos), key);
    if (found && value) *value = n.value_at(pos);
    pages_->unfix(leaf.pid, leaf.page, LatchMode::kShared);
    return found;
  }

  // Replaces the value of an existing key; false if the key is absent.
  bool update(PackedKey key, u64 value, u64 lsn = 0) {
    const Fixed leaf = descend_for_leaf_write(key);
    Node n = node(leaf.page);
    const u32 pos = lower_bound(n, key);
    const bool found = pos < n.count() && equal(n.key_at(pos), key);
    if (found) {
      n.set_value(pos, value);
      Stamp::stamp(leaf.page, lsn);
    }
    pages_->unfix(leaf.pid, leaf.page, LatchMode::kExclusive);
    return found;
  }

  bool erase(PackedKey key, u64 lsn = 0) {
    const Fixed leaf = descend_for_leaf_write(key);
    Node n = node(leaf.page);
    const u32 pos = lower_bound(n, key);
    const bool found = pos < n.count() && equal(n.key_at(pos), key);
    if (found) {
      n.erase_at(pos);
      Stamp::stamp(leaf.page, lsn);
      size_.fetch_sub(1, std::memory_order_relaxed);
    }
    pages_->unfix(leaf.pid, leaf.page, LatchMode::kExclusive);
    return found;
  }

  // Inserts a new key; false (and no change) if it is already present.
  bool insert(PackedKey key, u64 value, u64 lsn = 0) {
    std::vector<Fixed>& path = path_scratch();
    path.clear();
    descend_exclusive(key, path);  // path: latched ancestors that may split, then the leaf
    Fixed leaf = path.back();
    path.pop_back();
    Node n = node(leaf.page);
    const u32 pos = lower_bound(n, key);
    if (pos < n.count() && equal(n.key_at(pos), key)) {
      release_all(path);
      pages_->unfix(leaf.pid, leaf.page, LatchMode::kExclusive);
      return false;
    }
    size_.fetch_add(1, std::memory_order_relaxed);
    if (!n.full()) {
      n.insert_at(pos, key, value);
      Stamp::stamp(leaf.page, lsn);
      release_all(path);
      pages_->unfix(leaf.pid, leaf.page, LatchMode::kExclusive);
      return true;
    }
    // Split the leaf (its upper half's records move to the new page), then
    // push the separator up the latched path.
    const PageId right = pages_->allocate();
    std::byte* right_page = pages_->fix(right, LatchMode::kExclusive);
    Node r = node(right_page);
    r.init(/*leaf=*/true);
    n.move_to(r, n.count() / 2);
    r.header().next = n.header().next;
    n.header().next = right;
    const PackedKey separator = r.key_at(0);
    if (less(key, separator)) {
      n.insert_at(lower_bound(n, key), key, value);
    } else {
      r.insert_at(lower_bound(r, key), key, value);
    }
    Stamp::stamp(leaf.page, lsn);
    Stamp::stamp(right_page, lsn);
    pages_->unfix(right, right_page, LatchMode::kExclusive);
    insert_separator(path, leaf, separator, right, lsn);
    return true;
  }

  // Cursor at the first entry whose key is >= key.
  Cursor seek(PackedKey key) {
    const Fixed leaf = descend_shared(key);
    return Cursor(this, leaf.pid, leaf.page, lower_bound(node(leaf.page), key));
  }

  Cursor begin() { return seek(0); }

  // For cursors that hold no latch between calls (cursor.hpp).
  struct Fixed {
    PageId pid;
    std::byte* page;
  };
  Pages& pages() const { return *pages_; }
  Node node(std::byte* page) const { return Node(page, capacity_); }
  // The leaf that holds `key` (or would), fixed shared.
  Fixed fix_leaf(PackedKey key) { return descend_shared(key); }

  bool less(PackedKey a, PackedKey b) const { return KeyCompare::less(layout_, a, b); }
  bool equal(PackedKey a, PackedKey b) const { return KeyCompare::compare(layout_, a, b) == 0; }

  // First position whose key is >= key.
  u32 lower_bound(const Node& n, PackedKey key) const {
    u32 lo = 0, hi = n.count();
    while (lo < hi) {
      const u32 mid = (lo + hi) / 2;
      if (less(n.key_at(mid), key)) lo = mid + 1; else hi = mid;
    }
    return lo;
  }

 private:
  // First position whose key is > key: the child to descend into.
  u32 upper_bound(const Node& n, PackedKey key) const {
    u32 lo = 0, hi = n.count();
    while (lo < hi) {
      const u32 mid = (lo + hi) / 2;
      if (less(key, n.key_at(mid))) hi = mid; else lo = mid + 1;
    }
    return lo;
  }

  PageId child_for(const Node& n, PackedKey key) const { return n.child(upper_bound(n, key)); }

  // Fixes the root in `mode`, retrying if a concurrent root split replaced it
  // between reading root_ and latching the page.
  Fixed fix_root(LatchMode mode) {
    for (;;) {
      const PageId pid = root();
      std::byte* page = pages_->fix(pid, mode);
      if (pid == root()) return {pid, page};
      pages_->unfix(pid, page, mode);
    }
  }

  // Shared latch coupling down to the leaf; returns it fixed shared.
  Fixed descend_shared(PackedKey key) {
    Fixed current = fix_root(LatchMode::kShared);
    for (;;) {
      const Node n = node(current.page);
      if (n.is_leaf()) return current;
      const PageId child = child_for(n, key);
      std::byte* child_page = pages_->fix(child, LatchMode::kShared);
      pages_->unfix(current.pid, current.page, LatchMode::kShared);
      current = {child, child_page};
    }
  }

  // Shared coupling through inner nodes, exclusive on the leaf (a write that
  // cannot change the tree's shape).
  Fixed descend_for_leaf_write(PackedKey key) {
    for (;;) {
      Fixed current = fix_root(LatchMode::kShared);
      if (node(current.page).is_leaf()) {
        // The root is the leaf: re-fix it exclusively (and re-check, since it
        // may have split in between).
        pages_->unfix(current.pid, current.page, LatchMode::kShared);
        Fixed leaf = fix_root(LatchMode::kExclusive);
        if (node(leaf.page).is_leaf()) return leaf;
        pages_->unfix(leaf.pid, leaf.page, LatchMode::kExclusive);
        continue;
      }
      for (;;) {
        const Node n = node(current.page);
        const PageId child = child_for(n, key);
        // The level above the leaves: latch the child exclusively.
        const bool child_is_leaf = n.header().level == 1;
        std::byte* child_page = pages_->fix(child, child_is_leaf ? LatchMode::kExclusive : LatchMode::kShared);
        pages_->unfix(current.pid, current.page, LatchMode::kShared);
        current = {child, child_page};
        if (child_is_leaf) return current;
      }
    }
  }

  // Exclusive latch coupling; ancestors are released once a child is safe
  // (not full). Leaves `path` = the latched nodes that may change, leaf last.
  void descend_exclusive(PackedKey key, std::vector<Fixed>& path) {
    path.push_back(fix_root(LatchMode::kExclusive));
    for (;;) {
      const Node n = node(path.back().page);
      if (n.is_leaf()) return;
      const PageId child = child_for(n, key);
      std::byte* child_page = pages_->fix(child, LatchMode::kExclusive);
      if (!node(child_page).full()) release_all(path);
      path.push_back({child, child_page});
    }
  }

  void release_all(std::vector<Fixed>& path) {
    for (const Fixed& f : path) pages_->unfix(f.pid, f.page, LatchMode::kExclusive);
    path.clear();
  }

  // Inserts (separator, right child) above `left` into the latched path,
  // splitting inner nodes and growing a new root as needed; unfixes `left`
  // and everything on the path.
  void insert_separator(std::vector<Fixed>& path, Fixed left, PackedKey separator, PageId right_child, u64 lsn) {
    u16 level = node(left.page).header().level;  // level of `left` (leaves: 0)
    while (!path.empty()) {
      pages_->unfix(left.pid, left.page, LatchMode::kExclusive);
      const Fixed parent = path.back();
      path.pop_back();
      Node n = node(parent.page);
      if (!n.full()) {
        n.insert_at(upper_bound(n, separator), separator, right_child);
        Stamp::stamp(parent.page, lsn);
        pages_->unfix(parent.pid, parent.page, LatchMode::kExclusive);
        release_all(path);
        return;
      }
      // Split: key mid moves up and its child becomes the right node's
      // first child; left keeps keys [0, mid), right gets the records after.
      const PageId right = pages_->allocate();
      std::byte* right_page = pages_->fix(right, LatchMode::kExclusive);
      Node r = node(right_page);
      r.init(/*leaf=*/false);
      r.header().level = n.header().level;
      const u32 mid = n.count() / 2;
      const PackedKey up = n.key_at(mid);
      r.header().first_child = static_cast<PageId>(n.value_at(mid));
      n.move_to(r, mid + 1);
      n.erase_at(mid);
      if (less(separator, up)) {
        n.insert_at(upper_bound(n, separator), separator, right_child);
      } else {
        r.insert_at(upper_bound(r, separator), separator, right_child);
      }
      Stamp::stamp(parent.page, lsn);
      Stamp::stamp(right_page, lsn);
      pages_->unfix(right, right_page, LatchMode::kExclusive);
      left = parent;
      level = n.header().level;
      separator = up;
      right_child = right;
    }
    // `left` is the root and split: a new root above it. The old root stays
    // latched until root_ points to the new one.
    const PageId new_root = pages_->allocate();
    std::byte* root_page = pages_->fix(new_root, LatchMode::kExclusive);
    Node root = node(root_page);
    root.init(/*leaf=*/false);
    root.header().level = static_cast<u8>(level + 1);
    root.header().first_child = left.pid;
    root.append(separator, right_child);
    Stamp::stamp(root_page, lsn);
    root_.store(new_root, std::memory_order_release);
    height_.fetch_add(1, std::memory_order_relaxed);
    pages_->unfix(new_root, root_page, LatchMode::kExclusive);
    pages_->unfix(left.pid, left.page, LatchMode::kExclusive);
  }

  // One scratch path per thread (inserts from several threads at once).
  static std::vector<Fixed>& path_scratch() {
    thread_local std::vector<Fixed> path;
    return path;
  }

  Pages* pages_;
  KeyLayout layout_;
  u32 capacity_;
  std::atomic<PageId> root_{kInvalidPage};
  std::atomic<int> height_{0};
  std::atomic<u64> size_{0};
};

}  // namespace dbrepro
