#pragma once
// The "optimal" system of E1: a hand-built in-memory B-tree kernel with no
// transaction support at all (no pages, log, locks, latches, sessions). It
// offers the same storage adapter as Engine, so it runs the very same New
// Order and Payment code.
#include <memory>
#include <vector>

#include "kernel/mem_btree.hpp"
#include "tpcc/schema.hpp"

namespace dbrepro {

// Rows live in chunks that never move, so a row pointer stays valid.
class RowArena {
 public:
  void* allocate(size_t bytes) {
    bytes = (bytes + 7) & ~size_t{7};
    if (used_ + bytes > kChunk) {
      chunks_.push_back(std::make_unique<std::byte[]>(kChunk));
      used_ = 0;
    }
    void* p = chunks_.back().get() + used_;
    used_ += bytes;
    total_ += bytes;
    return p;
  }
  size_t bytes() const { return chunks_.size() * kChunk; }

 private:
  static constexpr size_t kChunk = 1 << 20;
  std::vector<std::unique_ptr<std::byte[]>> chunks_;
  size_t used_ = kChunk;
  size_t total_ = 0;
};

class MemEngine {
 public:
  explicit MemEngine(u32 /*page_size: no pages here*/ = 0) {}

  void begin() {}
  void commit() {}
  void abort() {}

  size_t database_bytes() const {
    size_t total = arena_.bytes();
    for (const MemBTree* tree : trees_) total += tree->bytes();
    return total;
  }
  size_t database_pages() const { return 0; }

  template <class Row>
  class Table {
   public:
    using Key = typename Row::Key;
    explicit Table(MemEngine& engine) : engine_(&engine) { engine.trees_.push_back(&tree_); }

    bool insert(const Key& key, const Row& row) {
      void* copy = engine_->arena_.allocate(sizeof(Row));
      std::memcpy(copy, &row, sizeof(Row));
      return tree_.insert(Row::pack(key), copy);
    }
    void insert(const Row& row) {  // heap-only rows: kept, never found again
      void* copy = engine_->arena_.allocate(sizeof(Row));
      std::memcpy(copy, &row, sizeof(Row));
      ++heap_rows_;
    }
    bool insert(const Key& key) { return tree_.insert(Row::pack(key), this); }

    template <class Fn>
    bool lookup1(const Key& key, Fn&& fn) {
      const void* row = tree_.find(Row::pack(key));
      if (!row) return false;
      fn(*static_cast<const Row*>(row));
      return true;
    }
    template <class Fn>
    bool update1(const Key& key, Fn&& fn) {
      void* row = tree_.find(Row::pack(key));
      if (!row) return false;
      fn(*static_cast<Row*>(row));
      return true;
    }
    template <class Fn>
    void scan(const Key& from, Fn&& fn) {
      tree_.scan(Row::pack(from), [&](u64 key, void* row) {
        if constexpr (tpcc::kIsIndexOnly<Row>) {
          return fn(Row::unpack(key));
        } else {
          return fn(Row::unpack(key), *static_cast<const Row*>(row));
        }
      });
    }
    bool erase(const Key& key) { return tree_.erase(Row::pack(key)); }

    void load(const Key& key, const Row& row) { insert(key, row); }
    void load(const Row& row) { insert(row); }
    void load(const Key& key) { insert(key); }

    u64 size() const { return tpcc::kIsHeapOnly<Row> ? heap_rows_ : tree_.size(); }

   private:
    MemEngine* engine_;
    MemBTree tree_;
    u64 heap_rows_ = 0;
  };

 private:
  RowArena arena_;
  std::vector<const MemBTree*> trees_;
};

}  // namespace dbrepro
