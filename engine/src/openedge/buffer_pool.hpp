#pragma once
// E3's buffer pool: frames holding pages of the page store, found through a
// hash table of buckets (OpenEdge's BHT, ~25% of the pool by default) guarded
// by L latches, bucket b -> latch b mod L (see latch_sizing.hpp).
//
// A frame's (page, version) pair names what it holds: the version changes
// whenever the frame is loaded, evicted or its page is modified, so an
// optimistic cursor can re-validate a remembered frame without the hash table.
#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

#include "common/types.hpp"
#include "latch/latch.hpp"
#include "openedge/access_counters.hpp"
#include "openedge/database.hpp"
#include "openedge/latch_sizing.hpp"

namespace dbrepro::openedge {

inline constexpr u32 kNoFrame = ~u32{0};
// A frame being evicted (or free) carries this many pins: a pin taken without
// the bucket latch (optimistic) sees it and backs off.
inline constexpr u32 kEvicting = 1u << 30;

struct Frame {
  std::atomic<PageId> page{kInvalidPage};
  std::atomic<u64> version{0};
  std::atomic<u32> pins{kEvicting};
  u32 next_in_bucket = kNoFrame;  // guarded by the bucket's latch
  RwLatch content;                // readers copy under shared, modifiers hold exclusive
  alignas(8) PageBytes bytes;  // index entries and records are read in place: 8-byte fields
};

struct BufferPoolConfig {
  u32 frames = 0;             // 0: one per page of the database (everything fits, as in the article)
  u32 bucket_percent = 25;    // hash buckets as a share of the frames (OpenEdge's -hash default)
  LatchSizing latches = LatchSizing::fixed(1);
};

class BufferPool {
 public:
  BufferPool(const Database& db, const BufferPoolConfig& config);

  // The page, pinned, found through the hash table (loaded on a miss).
  Frame* fix(PageId page, AccessCounters& counters);
  // Pins `frame` if it still holds `page` at `version` (no hash lookup).
  bool revalidate(Frame* frame, PageId page, u64 version);
  void unfix(Frame* frame) { frame->pins.fetch_sub(1, std::memory_order_release); }

  // Drop a page from the pool; false if it is pinned or absent.
  bool evict(PageId page);
  // Modify a page in place (here: the version only, as an update would).
  void touch(PageId page);

  u32 frame_count() const { return static_cast<u32>(frames_.size()); }
  u32 bucket_count() const { return static_cast<u32>(heads_.size()); }
  u32 latch_count() const { return latch_count_; }
  u32 resident_pages() const;

 private:
  struct alignas(64) BucketLatch {
    RwLatch latch;
  };
  u32 bucket_of(PageId page) const { return static_cast<u32>((u64{page} * 0x9E3779B97F4A7C15ull >> 32) % heads_.size()); }
  RwLatch& latch_of(u32 bucket) { return latches_[bucket % latch_count_].latch; }
  u32 find(u32 bucket, PageId page) const;
  void unlink(u32 bucket, u32 frame);
  u32 take_victim();  // a frame holding no page, its pins at kEvicting
  Frame* load(PageId page);

  const Database& db_;
  std::vector<Frame> frames_;
  std::vector<u32> heads_;
  u32 latch_count_;
  std::unique_ptr<BucketLatch[]> latches_;
  std::mutex free_mutex_;  // free list and clock hand
  std::vector<u32> free_;
  u32 clock_hand_ = 0;
};

}  // namespace dbrepro::openedge
