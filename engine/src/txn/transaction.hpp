#pragma once
// Per-transaction state that the other components hang their bookkeeping on:
// the locks held (released at commit), the log chain, the undo list that
// rolls the transaction back on abort (kept by the write-ahead log), and the
// store handles it has looked up (catalog/store_directory.hpp).
#include <array>
#include <vector>

#include "common/types.hpp"
#include "txn/undo.hpp"

namespace dbrepro {

struct LockRequest;

// The store descriptors a transaction has used (Shore's sdesc_cache_t): a
// small array searched linearly by store number; emptied when it ends.
struct StoreCache {
  static constexpr u32 kCapacity = 16;
  struct Slot {
    u16 store;
    void* handle;
  };
  u32 count = 0;
  std::array<Slot, kCapacity> slots;

  void* find(u16 store) const {
    for (u32 i = 0; i < count; ++i)
      if (slots[i].store == store) return slots[i].handle;
    return nullptr;
  }
  void add(u16 store, void* handle) {
    if (count == kCapacity) count = 0;  // full: start over (the directory still has them all)
    slots[count++] = Slot{store, handle};
  }
  void clear() { count = 0; }
};

struct Transaction {
  // User-provided, so that new Transaction() does not zero the whole object
  // (the store cache's slots are written before they are read): a stack
  // without the directory pays nothing for its cache.
  Transaction() {}

  u64 id = 0;
  u64 first_lsn = 0;
  u64 last_lsn = 0;
  std::vector<LockRequest*> locks;   // granted, in acquisition order
  UndoList undo;                     // what abort reverts, oldest first
  StoreCache stores;                 // emptied by the directory at the end (not by reset)

  void reset(u64 new_id) {
    id = new_id;
    first_lsn = last_lsn = 0;
    locks.clear();
    undo.clear();
  }
};

}  // namespace dbrepro
