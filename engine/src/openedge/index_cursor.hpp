#pragma once
// An index cursor over one column of one table: the records whose value lies
// in [lo, hi), in index order. Every record costs a visit to its index leaf
// and to its data page. The Access policy decides how the leaf is found again
// on each visit:
//   LookupAccess      through the buffer pool's hash table, every time
//                     (OpenEdge 11);
//   OptimisticAccess  the cursor remembers (frame, page, version) of the leaf
//                     and re-validates it, falling back to the hash table only
//                     when the frame was evicted or the page changed
//                     (OpenEdge 12's optimistic index access).
#include <algorithm>
#include <vector>

#include "openedge/buffer_pool.hpp"
#include "openedge/database.hpp"
#include "openedge/schema.hpp"

namespace dbrepro::openedge {

struct LookupAccess {
  static constexpr const char* kName = "lookup";
};
struct OptimisticAccess {
  static constexpr const char* kName = "optimistic";
};

template <class Access>
class IndexCursor {
 public:
  IndexCursor(BufferPool& pool, const Database& db, u8 table, Column column, i64 lo, i64 hi)
      : pool_(&pool), index_(&db.tables.at(table).indexes[static_cast<u8>(column)]), lo_(lo), hi_(hi) {
    // The first leaf that can hold lo (equal keys may end the leaf before).
    const auto& keys = index_->first_keys;
    const auto at = std::lower_bound(keys.begin(), keys.end(), lo);
    leaf_ = static_cast<u32>(at == keys.begin() ? 0 : at - keys.begin() - 1);
    done_ = lo >= hi || index_->leaves.empty();
  }

  // The next record in the range into `out`; false once the range is exhausted.
  bool next(Record& out, AccessCounters& counters) {
    while (!done_) {
      if (leaf_ >= index_->leaves.size()) return finish();
      const PageId page = index_->leaves[leaf_];
      Frame* frame = fix_leaf(page, counters);
      frame->content.lock_shared();
      if (!still_valid(frame, counters)) {  // changed between the pin and the latch
        frame->content.unlock_shared();
        pool_->unfix(frame);
        continue;
      }
      const u32 count = leaf_header(frame->bytes).count;
      const IndexEntry* entries = leaf_entries(frame->bytes);
      if (!positioned_) {
        slot_ = static_cast<u32>(std::lower_bound(entries, entries + count, lo_,
                                                  [](const IndexEntry& e, i64 key) { return e.key < key; }) -
                                 entries);
        positioned_ = true;
      }
      const bool in_leaf = slot_ < count;
      const IndexEntry entry = in_leaf ? entries[slot_] : IndexEntry{};
      frame->content.unlock_shared();
      pool_->unfix(frame);
      if (!in_leaf) {
        ++leaf_;
        slot_ = 0;
        continue;
      }
      if (entry.key >= hi_) return finish();
      ++slot_;
      read_record(entry.rid, out, counters);
      return true;
    }
    return false;
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
  Frame* fix_leaf(PageId page, AccessCounters& counters) {
    if constexpr (std::is_same_v<Access, OptimisticAccess>) {
      if (remembered_ != nullptr && remembered_page_ == page) {
        if (pool_->revalidate(remembered_, page, remembered_version_)) {
          ++counters.lookups_avoided;
          return remembered_;
        }
        ++counters.revalidation_failures;
      }
      Frame* frame = pool_->fix(page, counters);
      remembered_ = frame;
      remembered_page_ = page;
      remembered_version_ = frame->version.load(std::memory_order_acquire);
      return frame;
    } else {
      return pool_->fix(page, counters);
    }
  }

  // Under the leaf's shared latch: the frame still holds the version the
  // cursor remembered (an optimistic cursor forgets it otherwise and retries).
  bool still_valid(Frame* frame, AccessCounters& counters) {
    if constexpr (std::is_same_v<Access, OptimisticAccess>) {
      if (frame->version.load(std::memory_order_acquire) != remembered_version_) {
        ++counters.revalidation_failures;
        remembered_ = nullptr;
        return false;
      }
    }
    return true;
  }

  void read_record(u64 rid, Record& out, AccessCounters& counters) {
    Frame* frame = pool_->fix(rid_page(rid), counters);
    frame->content.lock_shared();
    out = page_records(frame->bytes)[rid_slot(rid)];
    frame->content.unlock_shared();
    pool_->unfix(frame);
    ++counters.record_reads;
  }

  bool finish() {
    done_ = true;
    return false;
  }

  BufferPool* pool_;
  const IndexInfo* index_;
  i64 lo_, hi_;
  u32 leaf_ = 0;
  u32 slot_ = 0;  // the next entry of the current leaf (index pages are read-only here)
  bool positioned_ = false;
  bool done_ = false;
  Frame* remembered_ = nullptr;  // OptimisticAccess only
  PageId remembered_page_ = kInvalidPage;
  u64 remembered_version_ = 0;
};

}  // namespace dbrepro::openedge
