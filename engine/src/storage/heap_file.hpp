#pragma once
// A heap file: the records of one table, appended to slotted pages in order.
// Record creation fills the current page and starts a new one when full.
#include <stdexcept>
#include <string>
#include <vector>

#include "storage/record_id.hpp"
#include "storage/slotted_page.hpp"

namespace dbrepro {

template <class Pages>
class HeapFile {
 public:
  explicit HeapFile(Pages& pages) : pages_(&pages) {
    if (pages.page_size() > SlottedPage::kMaxPageSize) throw std::invalid_argument("page_size above 64 KB");
  }

  RecordId create(const void* data, u16 length) {
    if (current_ != kInvalidPage) {
      SlottedPage page(pages_->fix(current_));
      if (page.fits(length)) return insert_into(page, data, length);
      pages_->unfix(current_);
    }
    if (length > SlottedPage::max_record(pages_->page_size()))
      throw std::invalid_argument("record of " + std::to_string(length) + " bytes larger than a page");
    current_ = pages_->allocate();
    page_ids_.push_back(current_);
    SlottedPage page(pages_->fix(current_));
    page.init(pages_->page_size());
    return insert_into(page, data, length);
  }

  // Pointer to the record's bytes; valid until unfix(rid).
  std::byte* fix(RecordId rid) { return SlottedPage(pages_->fix(rid.page)).record(rid.slot); }
  void unfix(RecordId rid) { pages_->unfix(rid.page); }

  // Visits every record in creation order: fn(RecordId, std::byte*).
  template <class Fn>
  void for_each(Fn&& fn) {
    for (PageId pid : page_ids_) {
      SlottedPage page(pages_->fix(pid));
      for (u16 s = 0; s < page.slot_count(); ++s) fn(RecordId{pid, s}, page.record(s));
      pages_->unfix(pid);
    }
  }

  u64 record_count() const { return records_; }
  size_t page_count() const { return page_ids_.size(); }

 private:
  // Inserts into the current page, which the caller fixed; unfixes it.
  RecordId insert_into(SlottedPage& page, const void* data, u16 length) {
    const u16 slot = page.insert(data, length);
    pages_->unfix(current_);
    ++records_;
    return RecordId{current_, slot};
  }

  Pages* pages_;
  PageId current_ = kInvalidPage;
  std::vector<PageId> page_ids_;
  u64 records_ = 0;
};

}  // namespace dbrepro
