#pragma once
// A read cursor over a BTree (btree.hpp) that holds no latch between calls:
// each next() fixes the current leaf, reads one entry and lets the leaf go,
// so a cursor may stay open across a client's messages, as a database
// server's cursors do. Between calls it keeps its leaf, its position there
// and the last key it returned, and finds its place again in one of two ways
// (the Find policy):
//   FindByLookup    fix the leaf by page id through the page table; the
//                   position holds if the entry before it is still the last
//                   key returned (keys are unique and sorted), else the
//                   cursor descends from the root to that key's successor;
//   FindByRemember  re-fix the remembered frame without the page table
//                   (Pages::refix of a FrameRef: OpenEdge 12's optimistic
//                   index access); an unchanged frame version means an
//                   unchanged leaf, so the position holds as is. If the
//                   re-fix fails (frame reused, page changed) the cursor
//                   falls back to FindByLookup's way.
// Moving to the right sibling couples: the sibling is fixed before the leaf
// is let go, so a split in between cannot hide entries. The leaf is held by
// a guard (buffer/page_guard.hpp) for the length of one call.
#include <type_traits>
#include <utility>

#include "btree/btree.hpp"
#include "common/types.hpp"
#include "latch/latch.hpp"

namespace dbrepro {

namespace cursor_detail {
template <class Pages, bool kRemember>
struct Ref {
  using type = char;  // FindByLookup keeps no frame
};
template <class Pages>
struct Ref<Pages, true> {
  using type = decltype(std::declval<Pages&>().remember(0, nullptr));
};
}  // namespace cursor_detail

struct FindByLookup {
  static constexpr const char* kName = "lookup";
};
struct FindByRemember {
  static constexpr const char* kName = "remember";
};

template <class Tree, class Find = FindByLookup>
class ReadCursor {
 public:
  static constexpr bool kRemember = std::is_same_v<Find, FindByRemember>;
  using Pages = typename Tree::PageStore;
  using Shared = typename Tree::Shared;

  // At the first entry whose key is >= from.
  ReadCursor(Tree& tree, PackedKey from) : tree_(&tree), from_(from) {}

  // The next entry; false at the end of the tree.
  bool next(PackedKey& key, u64& value) {
    if (done_) return false;
    Shared leaf = find();
    for (;;) {
      const Node n = tree_->node(leaf.page());
      if (pos_ < n.count()) {
        key = last_ = n.key_at(pos_);
        value = n.value_at(pos_);
        ++pos_;
        returned_ = true;
        if constexpr (kRemember) {
          ref_ = pages().remember(leaf.pid(), leaf.page());
          have_ref_ = true;
        }
        return true;
      }
      const PageId right = n.header().next;
      if (right == kInvalidPage) {
        leaf.release();
        done_ = true;
        leaf_ = kInvalidPage;
        return false;
      }
      leaf.couple(right);
      enter(right);
      pos_ = 0;
    }
  }

  bool done() const { return done_; }
  u64 leaves_entered() const { return leaves_entered_; }

 private:
  Pages& pages() const { return tree_->pages(); }

  void enter(PageId leaf) {
    leaf_ = leaf;
    ++leaves_entered_;
    have_ref_ = false;
  }

  // The current leaf fixed shared, pos_ the next entry to return there.
  Shared find() {
    if (leaf_ != kInvalidPage) {
      if constexpr (kRemember) {
        if (have_ref_) {
          if (std::byte* page = pages().refix(ref_, LatchMode::kShared)) return Shared::adopt(pages(), leaf_, page);
        }
      }
      Shared leaf(pages(), leaf_);
      const Node n = tree_->node(leaf.page());
      if (!returned_ || (pos_ > 0 && pos_ <= n.count() && n.key_at(pos_ - 1) == last_)) return leaf;
      leaf.release();  // the leaf changed: find the successor from the root
    }
    const PackedKey at = returned_ ? last_ + 1 : from_;  // (a tree holding key 2^64-1 is not read past it)
    Shared fixed = tree_->fix_leaf(at);
    if (fixed.pid() != leaf_) enter(fixed.pid());
    pos_ = tree_->lower_bound(tree_->node(fixed.page()), at);
    return fixed;
  }

  Tree* tree_;
  PackedKey from_;
  PageId leaf_ = kInvalidPage;
  u32 pos_ = 0;
  PackedKey last_ = 0;     // the last key returned (valid once returned_)
  bool returned_ = false;
  bool done_ = false;
  u64 leaves_entered_ = 0;
  typename cursor_detail::Ref<Pages, kRemember>::type ref_{};  // FindByRemember: leaf_'s frame as last seen
  bool have_ref_ = false;
};

}  // namespace dbrepro
