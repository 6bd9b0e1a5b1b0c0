#pragma once
// The "optimal" kernel's index: a hand-built in-memory B+tree over 64-bit
// keys with pointer children and row pointers in the leaves. No pages, no
// latches, no logging: the least an engine must do to find a row.
#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "common/types.hpp"

namespace dbrepro {

class MemBTree {
 public:
  static constexpr int kFanout = 32;  // keys per node: a node is a few cache lines

  MemBTree() : root_(new_node(/*leaf=*/true)) {}

  void* find(u64 key) const {
    const Node* n = root_;
    while (!n->leaf) n = n->children[upper(n, key)];
    const int pos = lower(n, key);
    return pos < n->count && n->keys[pos] == key ? n->values[pos] : nullptr;
  }

  // False if the key is present (then nothing changes).
  bool insert(u64 key, void* value) {
    Node* path[32];
    int depth = 0;
    Node* n = root_;
    while (!n->leaf) {
      path[depth++] = n;
      n = n->children[upper(n, key)];
    }
    int pos = lower(n, key);
    if (pos < n->count && n->keys[pos] == key) return false;
    ++size_;
    if (n->count < kFanout) {
      insert_leaf(n, pos, key, value);
      return true;
    }
    Node* right = new_node(true);
    const int half = n->count / 2;
    right->count = n->count - half;
    std::memcpy(right->keys, n->keys + half, right->count * sizeof(u64));
    std::memcpy(right->values, n->values + half, right->count * sizeof(void*));
    n->count = half;
    right->next = n->next;
    n->next = right;
    u64 separator = right->keys[0];
    Node* target = key < separator ? n : right;
    insert_leaf(target, lower(target, key), key, value);
    Node* child = right;
    while (depth > 0) {
      Node* parent = path[--depth];
      if (parent->count < kFanout) {
        insert_inner(parent, upper(parent, separator), separator, child);
        return true;
      }
      Node* sibling = new_node(false);
      const int mid = parent->count / 2;
      const u64 up = parent->keys[mid];
      sibling->count = parent->count - mid - 1;
      std::memcpy(sibling->keys, parent->keys + mid + 1, sibling->count * sizeof(u64));
      std::memcpy(sibling->children, parent->children + mid + 1, (sibling->count + 1) * sizeof(Node*));
      parent->count = mid;
      Node* into = separator < up ? parent : sibling;
      insert_inner(into, upper(into, separator), separator, child);
      separator = up;
      child = sibling;
    }
    Node* root = new_node(false);
    root->keys[0] = separator;
    root->children[0] = root_;
    root->children[1] = child;
    root->count = 1;
    root_ = root;
    return true;
  }

  bool erase(u64 key) {
    Node* n = root_;
    while (!n->leaf) n = n->children[upper(n, key)];
    const int pos = lower(n, key);
    if (pos >= n->count || n->keys[pos] != key) return false;
    std::memmove(n->keys + pos, n->keys + pos + 1, (n->count - pos - 1) * sizeof(u64));
    std::memmove(n->values + pos, n->values + pos + 1, (n->count - pos - 1) * sizeof(void*));
    --n->count;
    --size_;
    return true;
  }

  // Visits (key, value) from the first key >= from while fn returns true.
  template <class Fn>
  void scan(u64 from, Fn&& fn) const {
    const Node* n = root_;
    while (!n->leaf) n = n->children[upper(n, from)];
    for (int pos = lower(n, from); n; n = n->next, pos = 0)
      for (; pos < n->count; ++pos)
        if (!fn(n->keys[pos], n->values[pos])) return;
  }

  u64 size() const { return size_; }
  size_t bytes() const { return nodes_.size() * sizeof(Node); }

 private:
  struct Node {
    bool leaf;
    int count;
    u64 keys[kFanout];
    union {
      Node* children[kFanout + 1];
      void* values[kFanout + 1];
    };
    Node* next;  // leaves: right sibling
  };

  Node* new_node(bool leaf) {
    nodes_.push_back(std::make_unique<Node>());
    Node* n = nodes_.back().get();
    n->leaf = leaf;
    n->count = 0;
    n->next = nullptr;
    return n;
  }

  static int lower(const Node* n, u64 key) { return static_cast<int>(std::lower_bound(n->keys, n->keys + n->count, key) - n->keys); }
  static int upper(const Node* n, u64 key) { return static_cast<int>(std::upper_bound(n->keys, n->keys + n->count, key) - n->keys); }

  static void insert_leaf(Node* n, int pos, u64 key, void* value) {
    std::memmove(n->keys + pos + 1, n->keys + pos, (n->count - pos) * sizeof(u64));
    std::memmove(n->values + pos + 1, n->values + pos, (n->count - pos) * sizeof(void*));
    n->keys[pos] = key;
    n->values[pos] = value;
    ++n->count;
  }
  static void insert_inner(Node* n, int pos, u64 key, Node* right) {
    std::memmove(n->keys + pos + 1, n->keys + pos, (n->count - pos) * sizeof(u64));
    std::memmove(n->children + pos + 2, n->children + pos + 1, (n->count - pos) * sizeof(Node*));
    n->keys[pos] = key;
    n->children[pos + 1] = right;
    ++n->count;
  }

  std::vector<std::unique_ptr<Node>> nodes_;  // first: root_ is built from it
  Node* root_;
  u64 size_ = 0;
};

}  // namespace dbrepro
