#pragma once
// Per-transaction state that the other components hang their bookkeeping on:
// the locks held (released at commit), the log chain, and the undo list that
// rolls the transaction back on abort (kept by the write-ahead log).
#include <vector>

#include "common/types.hpp"
#include "txn/undo.hpp"

namespace dbrepro {

struct LockRequest;

struct Transaction {
  u64 id = 0;
  u64 first_lsn = 0;
  u64 last_lsn = 0;
  std::vector<LockRequest*> locks;   // granted, in acquisition order
  UndoList undo;                     // what abort reverts, oldest first

  void reset(u64 new_id) {
    id = new_id;
    first_lsn = last_lsn = 0;
    locks.clear();
    undo.clear();
  }
};

}  // namespace dbrepro
