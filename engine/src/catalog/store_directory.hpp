#pragma once
// Store handles found through the volume's directory once per transaction,
// as Shore's directory manager (dir_m) finds them: the volume keeps its
// directory as a B-tree keyed by store number (dir_vol_m), searched under
// the directory's mutex; a transaction keeps the store descriptors it has
// used in its own small cache (xct's sdesc_cache_t, searched linearly by
// store number and emptied when the transaction ends), so only a
// transaction's first access to a store reads the directory.
//
// E1's "dir lookup" switch replaces this by one cache for all transactions:
// each table keeps its handle (Engine::Table::cached_), and none of this
// code runs.
#include <stdexcept>
#include <vector>

#include "btree/key.hpp"
#include "common/types.hpp"
#include "latch/latch.hpp"
#include "txn/transaction.hpp"

namespace dbrepro {

template <class Entry, class Index, class Latching>
class StoreDirectory {
 public:
  // A store number is a catalog id (u16).
  static constexpr KeyLayout kLayout{16};

  template <class Pages>
  explicit StoreDirectory(Pages& pages) : index_(pages, kLayout) {}

  // Registers a store's handle under its number (while the database is built).
  void add(Entry& entry) {
    if (handles_.size() <= entry.id) handles_.resize(entry.id + 1, nullptr);
    handles_[entry.id] = &entry;
    index_.insert(kLayout.pack({entry.id}), entry.id);
  }

  // The handle of `store` for `txn`: from the transaction's cache, else from
  // the directory B-tree (then cached for the rest of the transaction).
  Entry& access(Transaction* txn, u16 store) {
    if (void* cached = txn->stores.find(store)) return *static_cast<Entry*>(cached);
    u64 found;
    {
      LatchGuard guard(latch_);
      if (!index_.lookup(kLayout.pack({store}), &found)) throw std::out_of_range("directory: no such store");
    }
    Entry* entry = handles_[found];
    txn->stores.add(store, entry);
    return *entry;
  }

  // The transaction's descriptors go with it (Shore frees the xct's sdesc cache).
  static void end(Transaction* txn) { txn->stores.clear(); }

 private:
  Index index_;
  typename Latching::Mutex latch_;
  std::vector<Entry*> handles_;  // store number -> handle (the descriptor the B-tree entry names)
};

}  // namespace dbrepro
