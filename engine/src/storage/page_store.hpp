#pragma once
// Direct page access: fixed-size pages addressed by PageId through a thin
// page-to-frame map, with no page table, pins or replacement. It is the
// "page access removed" form of E1 (BufferPool is the full form) and the
// store that later stacks use when the database is memory-resident.
// Both offer the same interface: allocate, fix(pid, mode), unfix(pid, page, mode).
#include <algorithm>
#include <array>
#include <memory>
#include <stdexcept>
#include <vector>

#include "common/page_size.hpp"
#include "common/types.hpp"
#include "latch/latch.hpp"

namespace dbrepro {

template <class Latching>
class DirectPages {
 public:
  static constexpr const char* kName = "direct pages";
  static constexpr u32 kDefaultPageSize = 8192;

  explicit DirectPages(u32 page_size = kDefaultPageSize, size_t /*capacity_pages*/ = 0) : page_size_(page_size) {
    check_page_size("page_size", page_size);
  }

  // A new zero-filled page.
  PageId allocate() {
    LatchGuard guard(mutex_);
    const size_t pid = count_;
    if (pid >= kChunkSize * kChunks) throw std::runtime_error("page store: more than 2^24 pages");
    if (pid % kChunkSize == 0) directory_[pid / kChunkSize] = std::make_unique<Slot[]>(kChunkSize);
    Slot& slot = directory_[pid / kChunkSize][pid % kChunkSize];
    slot.frame = std::make_unique_for_overwrite<std::byte[]>(page_size_);
    std::fill(slot.frame.get(), slot.frame.get() + page_size_, std::byte{0});
    count_ = pid + 1;
    return static_cast<PageId>(pid);
  }

  std::byte* fix(PageId pid, LatchMode mode = LatchMode::kShared) {
    Slot& slot = slot_of(pid);
    slot.latch.acquire(mode);
    return slot.frame.get();
  }
  void unfix(PageId pid, std::byte* /*page*/, LatchMode mode) { slot_of(pid).latch.release(mode); }
  void unfix(PageId pid, LatchMode mode = LatchMode::kShared) { slot_of(pid).latch.release(mode); }

  u32 page_size() const { return page_size_; }
  size_t page_count() const { return count_; }
  size_t bytes() const { return count_ * static_cast<size_t>(page_size_); }

 private:
  // A two-level map with a fixed directory: a page's slot never moves, so
  // readers need no latch while other threads allocate.
  static constexpr size_t kChunkSize = 4096;
  static constexpr size_t kChunks = 4096;
  struct Slot {
    std::unique_ptr<std::byte[]> frame;
    typename Latching::PageLatch latch;
  };
  Slot& slot_of(PageId pid) { return directory_[pid / kChunkSize][pid % kChunkSize]; }

  u32 page_size_;
  typename Latching::Mutex mutex_;  // guards allocation
  std::array<std::unique_ptr<Slot[]>, kChunks> directory_;
  size_t count_ = 0;
};

// The single-threaded store used where no stack is involved (tests, tools).
using PageStore = DirectPages<NoLatching>;

}  // namespace dbrepro
