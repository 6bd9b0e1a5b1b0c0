#pragma once
// In-memory page store: fixed-size pages addressed by PageId through a thin
// page-to-frame map. The buffer pool of later studies puts a page table,
// frames and pin/unpin in front of the same interface (fix/unfix/allocate).
#include <algorithm>
#include <memory>
#include <stdexcept>
#include <vector>

#include "common/types.hpp"

namespace dbrepro {

class PageStore {
 public:
  static constexpr u32 kDefaultPageSize = 8192;

  explicit PageStore(u32 page_size = kDefaultPageSize) : page_size_(page_size) {
    if (page_size < 1024 || (page_size & (page_size - 1)) != 0)
      throw std::invalid_argument("page_size must be a power of two >= 1024");
  }

  // A new zero-filled page.
  PageId allocate() {
    frames_.push_back(std::make_unique_for_overwrite<std::byte[]>(page_size_));
    std::byte* frame = frames_.back().get();
    std::fill(frame, frame + page_size_, std::byte{0});
    return static_cast<PageId>(frames_.size() - 1);
  }

  std::byte* fix(PageId pid) { return frames_[pid].get(); }
  const std::byte* fix(PageId pid) const { return frames_[pid].get(); }
  void unfix(PageId) {}

  u32 page_size() const { return page_size_; }
  size_t page_count() const { return frames_.size(); }
  size_t bytes() const { return frames_.size() * static_cast<size_t>(page_size_); }

 private:
  u32 page_size_;
  std::vector<std::unique_ptr<std::byte[]>> frames_;
};

}  // namespace dbrepro
