#pragma once
// Per-transaction state that the other components hang their bookkeeping on:
// the locks held (released at commit), the log chain, a scratch area for
// before-images.
#include <vector>

#include "common/types.hpp"

namespace dbrepro {

struct LockRequest;

struct Transaction {
  u64 id = 0;
  u64 first_lsn = 0;
  u64 last_lsn = 0;
  std::vector<LockRequest*> locks;       // granted, in acquisition order
  std::vector<std::byte> before_image;   // the row as it was before an update

  void reset(u64 new_id) {
    id = new_id;
    first_lsn = last_lsn = 0;
    locks.clear();
  }
};

}  // namespace dbrepro
