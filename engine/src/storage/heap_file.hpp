#pragma once
// A heap file: the records of one table on slotted pages. Where a new
// record goes is the Space policy's (storage/space_manager.hpp): Shore's
// space manager (a free-space map of the file's pages, a record header in
// front of each record) or plain appending (the current page, else a new one).
// Records are reached by record id: fix() latches their page in the given
// mode and returns the page and the record's body. erase() (the rollback of
// a create) marks a record dead: its slot and space are not reused, and
// for_each skips it.
#include <stdexcept>
#include <string>
#include <unordered_set>
#include <vector>

#include "buffer/page_guard.hpp"
#include "latch/latch.hpp"
#include "storage/record_id.hpp"
#include "storage/slotted_page.hpp"
#include "storage/space_manager.hpp"

namespace dbrepro {

struct PinnedRecord {
  std::byte* page;
  std::byte* record;
};

template <class Pages, class Latching = NoLatching, class Space = AppendSpace>
class HeapFile {
 public:
  explicit HeapFile(Pages& pages) : pages_(&pages) {
    if (pages.page_size() > SlottedPage::kMaxPageSize) throw std::invalid_argument("page_size above 64 KB");
  }

  // Copies a record in: a page with room from the space policy (fixed
  // exclusively and checked), else a new page. on_created(rid, page) runs
  // while the page is still latched exclusively (the engine logs the
  // creation and stamps the page).
  template <class OnCreated>
  RecordId create(const void* data, u16 length, OnCreated&& on_created) {
    const u32 stored = u32{Space::kHeader} + length;
    if (stored > SlottedPage::max_record(pages_->page_size()))
      throw std::invalid_argument("record of " + std::to_string(length) + " bytes larger than a page");
    LatchGuard guard(latch_);  // one creator at a time: the space policy's state is shared
    const PageId candidate = space_.candidate(stored);
    if (candidate != kInvalidPage) {
      ExclusiveGuard<Pages> page(*pages_, candidate);
      if (SlottedPage(page.page()).fits(stored)) return insert_into(page, data, length, on_created);
      space_.used(candidate, SlottedPage(page.page()).free_space());  // it had less room than the policy thought
    }
    const PageId pid = pages_->allocate();
    page_ids_.push_back(pid);
    ExclusiveGuard<Pages> page(*pages_, pid);
    SlottedPage(page.page()).init(pages_->page_size());
    space_.added(pid, SlottedPage(page.page()).free_space());
    return insert_into(page, data, length, on_created);
  }

  RecordId create(const void* data, u16 length) {
    return create(data, length, [](RecordId, std::byte*) {});
  }

  // The record's page and bytes, latched in `mode` until unfix(). A pair the
  // caller keeps by hand: E1 counts pinning a record and unpinning it as two
  // phases of their own (stack/engine.hpp's phase_pin, phase_unpin).
  PinnedRecord fix(RecordId rid, LatchMode mode = LatchMode::kShared) {
    std::byte* page = pages_->fix(rid.page, mode);
    return PinnedRecord{page, SlottedPage(page).record(rid.slot) + Space::kHeader};
  }
  void unfix(RecordId rid, const PinnedRecord& pinned, LatchMode mode = LatchMode::kShared) {
    pages_->unfix(rid.page, pinned.page, mode);
  }

  // Visits every live record in creation order: fn(RecordId, std::byte*).
  // Not while records are being created.
  template <class Fn>
  void for_each(Fn&& fn) {
    for (PageId pid : page_ids_) {
      const SharedGuard<Pages> page(*pages_, pid);
      SlottedPage slotted(page.page());
      for (u16 s = 0; s < slotted.slot_count(); ++s)
        if (dead_.empty() || !dead_.contains(RecordId{pid, s}.pack()))
          fn(RecordId{pid, s}, slotted.record(s) + Space::kHeader);
    }
  }

  // Marks a created record dead again (rollback of its creation); restore()
  // revives it (recovery undoing an interrupted rollback).
  void erase(RecordId rid) {
    LatchGuard guard(latch_);
    if (dead_.insert(rid.pack()).second) --records_;
  }
  void restore(RecordId rid) {
    LatchGuard guard(latch_);
    if (dead_.erase(rid.pack()) > 0) ++records_;
  }
  bool live(RecordId rid) {
    LatchGuard guard(latch_);
    return !dead_.contains(rid.pack());
  }

  u64 record_count() const { return records_; }
  u64 bytes_outside_pages() const { return 0; }
  size_t page_count() const { return page_ids_.size(); }

 private:
  // Inserts into the page the caller fixed and checked; lets it go.
  template <class OnCreated>
  RecordId insert_into(ExclusiveGuard<Pages>& guard, const void* data, u16 length, OnCreated& on_created) {
    const PageId pid = guard.pid();
    std::byte* page = guard.page();
    SlottedPage slotted(page);
    u16 slot;
    if constexpr (Space::kHeader > 0) {
      const typename Space::Tag tag = space_.tag(length);
      slot = slotted.insert(&tag, Space::kHeader, data, length);
    } else {
      slot = slotted.insert(data, length);
    }
    space_.used(pid, slotted.free_space());
    const RecordId rid{pid, slot};
    on_created(rid, page);
    guard.release();
    ++records_;
    return rid;
  }

  Pages* pages_;
  typename Latching::Mutex latch_;
  Space space_;
  std::vector<PageId> page_ids_;
  u64 records_ = 0;  // live ones
  std::unordered_set<u64> dead_;
};

}  // namespace dbrepro
