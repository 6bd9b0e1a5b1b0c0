#pragma once
// A B+tree over composite integer keys (packed into 64 bits) with 64-bit
// values, stored in pages of a page store. Keys are unique.
//
// Policies:
//  - KeyCompare: node search. GenericKeyCompare interprets the key layout on
//    every comparison; IntegerKeyCompare compares machine words.
//  - Pages: fix(pid, mode) / unfix(pid, page, mode) / allocate(). Page
//    latches live there; with NoLatching they cost nothing. Every fix here
//    is held by a guard (buffer/page_guard.hpp) that unfixes it.
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
#include "buffer/page_guard.hpp"
#include "common/types.hpp"
#include "latch/latch.hpp"

namespace dbrepro {

struct NoStamp {
  static void stamp(std::byte*, u64) {}
};

template <class KeyCompare, class Pages, class Stamp = NoStamp>
class BTree {
 public:
  using Shared = SharedGuard<Pages>;
  using Exclusive = ExclusiveGuard<Pages>;

  // Forward cursor over leaf entries in key order. It keeps its current leaf
  // fixed with a shared latch and releases it when it moves on or goes away.
  class Cursor {
   public:
    Cursor(Cursor&&) noexcept = default;
    Cursor& operator=(Cursor&&) noexcept = default;

    bool valid() const { return leaf_.held(); }
    PackedKey key() const { return node().key_at(pos_); }
    u64 value() const { return node().value_at(pos_); }
    void next() {
      ++pos_;
      settle();
    }

   private:
    friend class BTree;
    Cursor(BTree* tree, Shared leaf, u32 pos) : tree_(tree), leaf_(std::move(leaf)), pos_(pos) { settle(); }
    Node node() const { return Node(leaf_.page(), tree_->capacity_); }
    // Moves past the end of this leaf (and empty leaves) to the next entry;
    // latch coupling left to right: fix the sibling, then release this leaf.
    void settle() {
      while (leaf_.held() && pos_ >= node().count()) {
        const PageId next = node().header().next;
        if (next != kInvalidPage) leaf_.couple(next);
        else leaf_.release();
        pos_ = 0;
      }
    }
    BTree* tree_;
    Shared leaf_;
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
    Node(Exclusive(*pages_, root).page(), capacity_).init(/*leaf=*/true);
    root_.store(root);
    height_ = 1;
  }

  const KeyLayout& layout() const { return layout_; }
  PageId root() const { return root_.load(std::memory_order_acquire); }
  int height() const { return height_.load(std::memory_order_relaxed); }
  u64 size() const { return size_.load(std::memory_order_relaxed); }
  u32 node_capacity() const { return capacity_; }

  bool lookup(PackedKey key, u64* value) {
    const Shared leaf = descend_shared(key);
    const Node n = node(leaf.page());
    const u32 pos = lower_bound(n, key);
    const bool found = pos < n.count() && equal(n.key_at(pos), key);
    if (found && value) *value = n.value_at(pos);
    return found;
  }

  // Replaces the value of an existing key; false if the key is absent.
  bool update(PackedKey key, u64 value, u64 lsn = 0) {
    const Exclusive leaf = descend_for_leaf_write(key);
    Node n = node(leaf.page());
    const u32 pos = lower_bound(n, key);
    const bool found = pos < n.count() && equal(n.key_at(pos), key);
    if (found) {
      n.set_value(pos, value);
      Stamp::stamp(leaf.page(), lsn);
    }
    return found;
  }

  bool erase(PackedKey key, u64 lsn = 0) {
    const Exclusive leaf = descend_for_leaf_write(key);
    Node n = node(leaf.page());
    const u32 pos = lower_bound(n, key);
    const bool found = pos < n.count() && equal(n.key_at(pos), key);
    if (found) {
      n.erase_at(pos);
      Stamp::stamp(leaf.page(), lsn);
      size_.fetch_sub(1, std::memory_order_relaxed);
    }
    return found;
  }

  // Inserts a new key; false (and no change) if it is already present.
  bool insert(PackedKey key, u64 value, u64 lsn = 0) {
    ExclusivePath path(*pages_, path_scratch());  // unfixes what it still holds on every way out
    descend_exclusive(key, path);  // path: latched ancestors that may split, then the leaf
    Exclusive leaf = path.pop();
    Node n = node(leaf.page());
    const u32 pos = lower_bound(n, key);
    if (pos < n.count() && equal(n.key_at(pos), key)) {
      path.release_all();  // the ancestors, then the leaf
      return false;
    }
    size_.fetch_add(1, std::memory_order_relaxed);
    if (!n.full()) {
      n.insert_at(pos, key, value);
      Stamp::stamp(leaf.page(), lsn);
      path.release_all();
      return true;
    }
    // Split the leaf (its upper half's records move to the new page), then
    // push the separator up the latched path.
    const PageId right = pages_->allocate();
    Exclusive right_guard(*pages_, right);
    std::byte* right_page = right_guard.page();
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
    Stamp::stamp(leaf.page(), lsn);
    Stamp::stamp(right_page, lsn);
    right_guard.release();
    insert_separator(path, std::move(leaf), separator, right, lsn);
    return true;
  }

  // Cursor at the first entry whose key is >= key.
  Cursor seek(PackedKey key) {
    Shared leaf = descend_shared(key);
    const u32 pos = lower_bound(node(leaf.page()), key);
    return Cursor(this, std::move(leaf), pos);
  }

  Cursor begin() { return seek(0); }

  // For cursors that hold no latch between calls (cursor.hpp).
  Pages& pages() const { return *pages_; }
  Node node(std::byte* page) const { return Node(page, capacity_); }
  // The leaf that holds `key` (or would), fixed shared.
  Shared fix_leaf(PackedKey key) { return descend_shared(key); }

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

  // A fixed page on an insert's latched path.
  struct Fixed {
    PageId pid;
    std::byte* page;
  };
  // The pages an insert holds latched exclusively (ancestors that may split,
  // then the leaf), in a per-thread scratch vector: one guard over them all,
  // which unfixes whatever it still holds when it goes away. Always inlined,
  // as a page guard is (buffer/page_guard.hpp): it adds no call to the path.
  class ExclusivePath {
   public:
    [[gnu::always_inline]] ExclusivePath(Pages& pages, std::vector<Fixed>& nodes) : pages_(&pages), nodes_(nodes) {}
    ExclusivePath(const ExclusivePath&) = delete;
    ExclusivePath& operator=(const ExclusivePath&) = delete;
    [[gnu::always_inline]] ~ExclusivePath() { release_all(); }

    [[gnu::always_inline]] void push(Exclusive guard) { nodes_.push_back({guard.pid(), guard.detach()}); }
    [[gnu::always_inline]] Exclusive pop() {
      const Fixed f = nodes_.back();
      nodes_.pop_back();
      return Exclusive::adopt(*pages_, f.pid, f.page);
    }
    std::byte* last_page() const { return nodes_.back().page; }
    bool empty() const { return nodes_.empty(); }
    [[gnu::always_inline]] void release_all() {
      for (const Fixed& f : nodes_) pages_->unfix(f.pid, f.page, LatchMode::kExclusive);
      nodes_.clear();
    }

   private:
    Pages* pages_;
    std::vector<Fixed>& nodes_;
  };

  // Fixes the root in the guard's mode, retrying if a concurrent root split
  // replaced it between reading root_ and latching the page.
  template <class Guard>
  Guard fix_root() {
    for (;;) {
      const PageId pid = root();
      Guard root_guard(*pages_, pid);
      if (pid == root()) return root_guard;
    }
  }

  // Shared latch coupling down to the leaf; returns it fixed shared. Inlined
  // into lookup and seek, as before the guards (E1 counts these instructions).
  [[gnu::always_inline]] Shared descend_shared(PackedKey key) {
    Shared current = fix_root<Shared>();
    for (;;) {
      const Node n = node(current.page());
      if (n.is_leaf()) return current;
      current.couple(child_for(n, key));
    }
  }

  // Shared coupling through inner nodes, exclusive on the leaf (a write that
  // cannot change the tree's shape).
  Exclusive descend_for_leaf_write(PackedKey key) {
    for (;;) {
      Shared current = fix_root<Shared>();
      if (node(current.page()).is_leaf()) {
        // The root is the leaf: re-fix it exclusively (and re-check, since it
        // may have split in between).
        current.release();
        Exclusive leaf = fix_root<Exclusive>();
        if (node(leaf.page()).is_leaf()) return leaf;
        continue;
      }
      for (;;) {
        const Node n = node(current.page());
        const PageId child = child_for(n, key);
        // The level above the leaves: latch the child exclusively.
        if (n.header().level == 1) {
          Exclusive leaf(*pages_, child);
          current.release();
          return leaf;
        }
        current.couple(child);
      }
    }
  }

  // Exclusive latch coupling; ancestors are released once a child is safe
  // (not full). Leaves `path` = the latched nodes that may change, leaf last.
  void descend_exclusive(PackedKey key, ExclusivePath& path) {
    path.push(fix_root<Exclusive>());
    for (;;) {
      const Node n = node(path.last_page());
      if (n.is_leaf()) return;
      Exclusive child(*pages_, child_for(n, key));
      if (!node(child.page()).full()) path.release_all();
      path.push(std::move(child));
    }
  }

  // Inserts (separator, right child) above `left` into the latched path,
  // splitting inner nodes and growing a new root as needed; unfixes `left`
  // and everything on the path.
  void insert_separator(ExclusivePath& path, Exclusive left, PackedKey separator, PageId right_child,
                        u64 lsn) {
    u16 level = node(left.page()).header().level;  // level of `left` (leaves: 0)
    while (!path.empty()) {
      left.release();
      Exclusive parent = path.pop();
      Node n = node(parent.page());
      if (!n.full()) {
        n.insert_at(upper_bound(n, separator), separator, right_child);
        Stamp::stamp(parent.page(), lsn);
        parent.release();
        path.release_all();
        return;
      }
      // Split: key mid moves up and its child becomes the right node's
      // first child; left keeps keys [0, mid), right gets the records after.
      const PageId right = pages_->allocate();
      Exclusive right_guard(*pages_, right);
      std::byte* right_page = right_guard.page();
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
      Stamp::stamp(parent.page(), lsn);
      Stamp::stamp(right_page, lsn);
      right_guard.release();
      left = std::move(parent);
      level = n.header().level;
      separator = up;
      right_child = right;
    }
    // `left` is the root and split: a new root above it. The old root stays
    // latched until root_ points to the new one.
    const PageId new_root = pages_->allocate();
    Exclusive root_guard(*pages_, new_root);
    std::byte* root_page = root_guard.page();
    Node root = node(root_page);
    root.init(/*leaf=*/false);
    root.header().level = static_cast<u8>(level + 1);
    root.header().first_child = left.pid();
    root.append(separator, right_child);
    Stamp::stamp(root_page, lsn);
    root_.store(new_root, std::memory_order_release);
    height_.fetch_add(1, std::memory_order_relaxed);
    root_guard.release();
    left.release();
  }

  // One scratch path per thread (inserts from several threads at once);
  // empty between inserts (ExclusivePath lets every page go).
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
