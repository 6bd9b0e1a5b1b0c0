#pragma once
// The buffer manager of a disk-based engine whose database is cached in
// memory: every page access goes through a page table (hash of page id to
// frame, under bucket latches), pins the frame and latches it; unfix finds
// the frame from the page address. The pool holds the whole database, as in
// the looking-glass study (no eviction here: the disk-backed pool with
// replacement policies is a different component).
//
// DirectPages is the removed form (E1's "page access" switch): a thin
// page-to-frame map, records allocated directly, no pin counts.
#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/types.hpp"
#include "latch/latch.hpp"

namespace dbrepro {

template <class Latching>
class BufferPool {
 public:
  static constexpr const char* kName = "buffer pool";

  BufferPool(u32 page_size, size_t capacity_pages)
      : page_size_(page_size), capacity_(capacity_pages), frames_(std::make_unique<FrameMeta[]>(capacity_pages)) {
    check_page_size(page_size);
    size_t buckets = 1024;
    while (buckets < capacity_pages) buckets <<= 1;
    buckets_ = std::make_unique<Bucket[]>(buckets);
    mask_ = buckets - 1;
    // Reserve address space for the whole pool; pages become real memory
    // when first touched.
    void* arena = ::mmap(nullptr, bytes_reserved(), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                         -1, 0);
    if (arena == MAP_FAILED) throw std::runtime_error(std::string("buffer pool: mmap: ") + std::strerror(errno));
    arena_ = static_cast<std::byte*>(arena);
  }
  ~BufferPool() { ::munmap(arena_, bytes_reserved()); }
  BufferPool(const BufferPool&) = delete;
  BufferPool& operator=(const BufferPool&) = delete;

  // A new zero-filled page, registered in the page table.
  PageId allocate() {
    const PageId pid = static_cast<PageId>(used_.fetch_add(1));  // frame index == first page id
    if (pid >= capacity_) {
      used_.fetch_sub(1);
      throw std::runtime_error("buffer pool: full (" + std::to_string(capacity_) + " pages)");
    }
    FrameMeta& frame = frames_[pid];
    frame.pid = pid;
    Bucket& bucket = bucket_of(pid);
    LatchGuard guard(bucket.latch);
    frame.next = bucket.head;
    bucket.head = pid;
    return pid;
  }

  std::byte* fix(PageId pid, LatchMode mode = LatchMode::kShared) {
    Bucket& bucket = bucket_of(pid);
    u32 f;
    {
      LatchGuard guard(bucket.latch);
      f = bucket.head;
      while (f != kNoFrame && frames_[f].pid != pid) f = frames_[f].next;
      if (f == kNoFrame) throw std::out_of_range("buffer pool: page " + std::to_string(pid) + " not resident");
      ++frames_[f].pin_count;
    }
    frames_[f].latch.acquire(mode);
    return arena_ + static_cast<size_t>(f) * page_size_;
  }

  void unfix(PageId pid, std::byte* page, LatchMode mode = LatchMode::kShared) {
    const size_t f = static_cast<size_t>(page - arena_) / page_size_;
    frames_[f].latch.release(mode);
    Bucket& bucket = bucket_of(pid);
    LatchGuard guard(bucket.latch);
    --frames_[f].pin_count;
  }

  u32 pin_count(PageId pid) {
    Bucket& bucket = bucket_of(pid);
    LatchGuard guard(bucket.latch);
    for (u32 f = bucket.head; f != kNoFrame; f = frames_[f].next)
      if (frames_[f].pid == pid) return frames_[f].pin_count;
    return 0;
  }

  u32 page_size() const { return page_size_; }
  size_t page_count() const { return used_.load(); }
  size_t bytes() const { return page_count() * static_cast<size_t>(page_size_); }

 private:
  static constexpr u32 kNoFrame = ~u32{0};

  struct FrameMeta {
    PageId pid = kInvalidPage;
    u32 next = kNoFrame;  // next frame in the page-table bucket
    u32 pin_count = 0;
    typename Latching::PageLatch latch;
  };
  struct Bucket {
    typename Latching::Mutex latch;
    u32 head = kNoFrame;
  };

  static void check_page_size(u32 page_size) {
    if (page_size < 1024 || (page_size & (page_size - 1)) != 0)
      throw std::invalid_argument("page_size must be a power of two >= 1024");
  }
  size_t bytes_reserved() const { return capacity_ * static_cast<size_t>(page_size_); }
  Bucket& bucket_of(PageId pid) { return buckets_[(pid * 0x9E3779B1u) & mask_]; }

  u32 page_size_;
  size_t capacity_;
  std::unique_ptr<FrameMeta[]> frames_;
  std::unique_ptr<Bucket[]> buckets_;
  size_t mask_ = 0;
  std::byte* arena_ = nullptr;
  std::atomic<size_t> used_{0};
};

}  // namespace dbrepro
