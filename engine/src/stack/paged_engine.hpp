#pragma once
// The paged engine: rows in slotted pages of heap files, keys in B+trees, all
// found through the catalog. Its Table<Row> is the storage adapter the TPC-C
// transactions are written against (lookup1, update1, insert, scan, erase),
// so every engine stack runs the very same transaction code.
//
// Components that later studies switch on and off (logging, locking,
// latching, buffer management) are template policies of the stack; what is
// here is the storage every stack shares.
#include <cstring>
#include <string>
#include <type_traits>

#include "btree/btree.hpp"
#include "catalog/catalog.hpp"
#include "storage/heap_file.hpp"
#include "storage/page_store.hpp"
#include "tpcc/schema.hpp"

namespace dbrepro {

template <class KeyComparePolicy>
class PagedEngine {
 public:
  using KeyCompare = KeyComparePolicy;
  using Pages = PageStore;
  using Heap = HeapFile<Pages>;
  using Index = BTree<KeyCompare, Pages>;
  using Directory = Catalog<Heap, Index>;

  explicit PagedEngine(u32 page_size) : pages_(page_size) {}
  PagedEngine(const PagedEngine&) = delete;
  PagedEngine& operator=(const PagedEngine&) = delete;

  // Transaction boundaries: the hook points of logging and locking.
  void begin() {}
  void commit() {}
  void abort() {}

  Pages& pages() { return pages_; }
  Directory& catalog() { return catalog_; }

  // Creates the storage for Row and registers it in the catalog.
  template <class Row>
  typename Directory::Entry& create_table() {
    std::unique_ptr<Heap> heap;
    std::unique_ptr<Index> index;
    if constexpr (!tpcc::kIsIndexOnly<Row>) heap = std::make_unique<Heap>(pages_);
    if constexpr (!tpcc::kIsHeapOnly<Row>) index = std::make_unique<Index>(pages_, Row::kLayout);
    u32 row_size = 0;
    if constexpr (!tpcc::kIsIndexOnly<Row>) row_size = sizeof(Row);
    return catalog_.create(Row::kName, row_size, std::move(heap), std::move(index));
  }

  // The storage adapter for one table.
  template <class Row>
  class Table {
   public:
    using Key = typename Row::Key;

    Table(PagedEngine& engine) : engine_(&engine), entry_(&engine.template create_table<Row>()) {}

    // Creates the record and adds its key to the index; false if the key exists.
    bool insert(const Key& key, const Row& row) {
      static_assert(!tpcc::kIsIndexOnly<Row> && !tpcc::kIsHeapOnly<Row>);
      // On a duplicate key the new record stays unreferenced: dead space, but
      // the common path pays one B+tree descent, not two.
      const RecordId rid = entry_->heap->create(&row, sizeof(Row));
      return entry_->index->insert(Row::pack(key), rid.pack());
    }

    // For tables without a key (HISTORY): record creation only.
    void insert(const Row& row) {
      static_assert(tpcc::kIsHeapOnly<Row>);
      entry_->heap->create(&row, sizeof(Row));
    }

    // For index-only entries (secondary indexes): the key is the row.
    bool insert(const Key& key) {
      static_assert(tpcc::kIsIndexOnly<Row>);
      return entry_->index->insert(Row::pack(key), 0);
    }

    // Calls fn(const Row&) on the row with this key; false if there is none.
    template <class Fn>
    bool lookup1(const Key& key, Fn&& fn) {
      u64 value;
      if (!entry_->index->lookup(Row::pack(key), &value)) return false;
      const RecordId rid = RecordId::unpack(value);
      const Row* row = reinterpret_cast<const Row*>(entry_->heap->fix(rid));
      fn(*row);
      entry_->heap->unfix(rid);
      return true;
    }

    // Calls fn(Row&) on the row with this key, in place; false if there is none.
    template <class Fn>
    bool update1(const Key& key, Fn&& fn) {
      u64 value;
      if (!entry_->index->lookup(Row::pack(key), &value)) return false;
      const RecordId rid = RecordId::unpack(value);
      Row* row = reinterpret_cast<Row*>(entry_->heap->fix(rid));
      fn(*row);
      entry_->heap->unfix(rid);
      return true;
    }

    // Ascending from the first key >= from: fn(const Key&, const Row&) for
    // tables, fn(const Key&) for index-only entries; stops when fn returns false.
    template <class Fn>
    void scan(const Key& from, Fn&& fn) {
      for (auto cursor = entry_->index->seek(Row::pack(from)); cursor.valid(); cursor.next()) {
        const Key key = Row::unpack(cursor.key());
        if constexpr (tpcc::kIsIndexOnly<Row>) {
          if (!fn(key)) return;
        } else {
          const RecordId rid = RecordId::unpack(cursor.value());
          const Row* row = reinterpret_cast<const Row*>(entry_->heap->fix(rid));
          const bool more = fn(key, *row);
          entry_->heap->unfix(rid);
          if (!more) return;
        }
      }
    }

    // Removes the key from the index (the record's space is not reclaimed).
    bool erase(const Key& key) { return entry_->index->erase(Row::pack(key)); }

    u64 size() const { return entry_->index ? entry_->index->size() : entry_->heap->record_count(); }

   private:
    PagedEngine* engine_;
    typename Directory::Entry* entry_;
  };

 private:
  Pages pages_;
  Directory catalog_;
};

}  // namespace dbrepro
