#pragma once
// An index cursor over one column of one table: the records whose value lies
// in [lo, hi), in index order. The index is a B-tree (btree/) in the buffer
// pool (pool.hpp), read with btree/cursor.hpp's ReadCursor, which holds no
// latch between records: every record costs a visit to its index leaf and
// to its data page, each fixed with a shared buffer lock and let go before
// the record goes out. The Access policy decides how the leaf is found again
// on each visit:
//   LookupAccess      through the buffer pool's hash table, every time
//                     (OpenEdge 11);
//   OptimisticAccess  the cursor remembers the frame and version of its leaf
//                     and re-fixes it without the hash table, falling back
//                     to a lookup only when the frame was evicted or the page
//                     changed (OpenEdge 12's optimistic index access). The
//                     pool counts both (CacheStats: hits, refixes).
#include <type_traits>
#include <vector>

#include "btree/cursor.hpp"
#include "buffer/page_guard.hpp"
#include "openedge/access_counters.hpp"
#include "openedge/database.hpp"
#include "openedge/pool.hpp"
#include "openedge/schema.hpp"

namespace dbrepro::openedge {

struct LookupAccess {
  static constexpr const char* kName = "lookup";
  using Find = FindByLookup;
};
struct OptimisticAccess {
  static constexpr const char* kName = "optimistic";
  using Find = FindByRemember;
};

template <class Access>
class IndexCursor {
 public:
  IndexCursor(BufferPool& pool, const Database&, u8 table, Column column, i64 lo, i64 hi)
      : pool_(&pool), cursor_(pool.index(table, column), index_key(lo)), hi_(hi), done_(lo >= hi) {}

  // The next record in the range into `out`; false once the range is exhausted.
  bool next(Record& out, AccessCounters& counters) {
    if (done_) return false;
    PackedKey key;
    u64 rid;
    const u64 entered = cursor_.leaves_entered();
    const bool found = cursor_.next(key, rid);
    counters.index_blocks += cursor_.leaves_entered() - entered;
    if (!found || index_value(key) >= hi_) {
      done_ = true;
      return false;
    }
    read_record(rid, out, counters);
    return true;
  }

  // Up to `max` records appended to `out`; false once the range is exhausted.
  bool next_batch(u32 max, std::vector<Record>& out, AccessCounters& counters) {
    Record r;
    for (u32 i = 0; i < max; ++i) {
      if (!next(r, counters)) return false;
      out.push_back(r);
    }
    return !done_;
  }

  bool done() const { return done_; }

 private:
  void read_record(u64 rid, Record& out, AccessCounters& counters) {
    const PageId page = rid_page(rid);
    const SharedGuard<BufferPool> bytes(*pool_, page);
    out = page_records(bytes.page())[rid_slot(rid)];
    ++counters.record_reads;
  }

  BufferPool* pool_;
  ReadCursor<IndexTree, typename Access::Find> cursor_;
  i64 hi_;
  bool done_;
};

}  // namespace dbrepro::openedge
