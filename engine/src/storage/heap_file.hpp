#pragma once
// A heap file: the records of one table, appended to slotted pages in order.
// Record creation fills the current page and starts a new one when full.
// Records are reached by record id: fix() latches their page in the given
// mode and returns the page and the record's address. erase() (the rollback
// of a create) marks a record dead: its slot and space are not reused, and
// for_each skips it.
#include <stdexcept>
#include <string>
#include <unordered_set>
#include <vector>

#include "latch/latch.hpp"
#include "storage/record_id.hpp"
#include "storage/slotted_page.hpp"

namespace dbrepro {

struct PinnedRecord {
  std::byte* page;
  std::byte* record;
};

template <class Pages, class Latching = NoLatching>
class HeapFile {
 public:
  explicit HeapFile(Pages& pages) : pages_(&pages) {
    if (pages.page_size() > SlottedPage::kMaxPageSize) throw std::invalid_argument("page_size above 64 KB");
  }

  // Copies a record in. on_created(rid, page) runs while the page is still
  // latched exclusively (the engine logs the creation and stamps the page).
  template <class OnCreated>
  RecordId create(const void* data, u16 length, OnCreated&& on_created) {
    if (length > SlottedPage::max_record(pages_->page_size()))
      throw std::invalid_argument("record of " + std::to_string(length) + " bytes larger than a page");
    LatchGuard guard(latch_);  // one appender at a time: current_ is shared
    if (current_ != kInvalidPage) {
      std::byte* page = pages_->fix(current_, LatchMode::kExclusive);
      if (SlottedPage(page).fits(length)) return insert_into(page, data, length, on_created);
      pages_->unfix(current_, page, LatchMode::kExclusive);
    }
    current_ = pages_->allocate();
    page_ids_.push_back(current_);
    std::byte* page = pages_->fix(current_, LatchMode::kExclusive);
    SlottedPage(page).init(pages_->page_size());
    return insert_into(page, data, length, on_created);
  }

  RecordId create(const void* data, u16 length) {
    return create(data, length, [](RecordId, std::byte*) {});
  }

  // The record's page and bytes, latched in `mode` until unfix().
  PinnedRecord fix(RecordId rid, LatchMode mode = LatchMode::kShared) {
    std::byte* page = pages_->fix(rid.page, mode);
    return PinnedRecord{page, SlottedPage(page).record(rid.slot)};
  }
  void unfix(RecordId rid, const PinnedRecord& pinned, LatchMode mode = LatchMode::kShared) {
    pages_->unfix(rid.page, pinned.page, mode);
  }

  // Visits every live record in creation order: fn(RecordId, std::byte*).
  // Not while records are being created.
  template <class Fn>
  void for_each(Fn&& fn) {
    for (PageId pid : page_ids_) {
      std::byte* page = pages_->fix(pid, LatchMode::kShared);
      SlottedPage slotted(page);
      for (u16 s = 0; s < slotted.slot_count(); ++s)
        if (dead_.empty() || !dead_.contains(RecordId{pid, s}.pack())) fn(RecordId{pid, s}, slotted.record(s));
      pages_->unfix(pid, page, LatchMode::kShared);
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
  size_t page_count() const { return page_ids_.size(); }

 private:
  // Inserts into the current page, which the caller fixed; unfixes it.
  template <class OnCreated>
  RecordId insert_into(std::byte* page, const void* data, u16 length, OnCreated& on_created) {
    const u16 slot = SlottedPage(page).insert(data, length);
    const RecordId rid{current_, slot};
    on_created(rid, page);
    pages_->unfix(current_, page, LatchMode::kExclusive);
    ++records_;
    return rid;
  }

  Pages* pages_;
  typename Latching::Mutex latch_;
  PageId current_ = kInvalidPage;
  std::vector<PageId> page_ids_;
  u64 records_ = 0;  // live ones
  std::unordered_set<u64> dead_;
};

}  // namespace dbrepro
