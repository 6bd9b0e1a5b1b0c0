#pragma once
// SoQoL's FIFO-based page cache (E5), as its article describes it: three
// areas of FIFO rings and no lock on a hit.
//  - hot area: four FIFO rings; each page carries access statistics (hits
//    since the cache last looked at it, saturating at 3);
//  - cold area: one FIFO ring of pages with no references and no statistics;
//    it is the source of free frames; a page requested while cold is
//    re-warmed into the hot area;
//  - free area: frames holding no page (the pool's free list).
// The article gives the structure, not the rules; ours (an interpretation):
//  - a new page enters hot ring 0; a hit adds 1 to its statistics (one byte,
//    whatever area the page is in: in the cold area that byte is the
//    "requested again" mark);
//  - cooling takes the oldest page of the fullest hot ring over its quota (a
//    quarter of the hot area), else of the lowest non-empty ring: a page hit
//    since the last look moves up one ring (ring 3 keeps it) with its
//    statistics cleared; a page not hit moves down one ring, from ring 0 into
//    the cold area;
//  - the hot area is cooled until the cold area holds a tenth of the cache;
//  - a free frame comes from the oldest cold page; one requested while cold
//    is re-warmed into hot ring 1 instead.
//  - the cold area holds clean pages (the article: they "need no writing"):
//    a page entering it is handed to the cache's `clean(slot)`, which starts
//    writing it back if it is dirty (false: it is being changed right now,
//    so it is in use, not cold; it goes back to hot ring 0). A page changed
//    while cold was requested, so it is re-warmed, never freed dirty.
// Only cooling and eviction move pages, and they run on the miss path.
#include <array>

#include "cache/slot_queues.hpp"

namespace dbrepro::cache {

class Soqol {
 public:
  static constexpr const char* kName = "soqol";
  static constexpr int kHotRings = 4;
  static constexpr u8 kStatsCap = 3;

  explicit Soqol(u32 capacity)
      : capacity_(capacity),
        cold_target_(capacity / 10 > 0 ? capacity / 10 : 1),
        ring_quota_((capacity - cold_target_) / kHotRings),
        hot_{SlotRing(capacity), SlotRing(capacity), SlotRing(capacity), SlotRing(capacity)},
        cold_(capacity),
        stats_(capacity) {}

  void hit(u32 slot) { stats_.bump(slot, kStatsCap); }
  void miss(u64) {}

  // Without a cache behind it (the trace simulator) no page is dirty.
  template <class Claim>
  u32 evict(Claim&& claim) {
    return evict(claim, [](u32) { return true; });
  }
  template <class Claim, class Clean>
  u32 evict(Claim&& claim, Clean&& clean) {
    EvictionBudget budget(capacity_);
    for (;;) {
      while (cold_.size() < cold_target_ && hot_size() > 0) {
        cool_one(clean);
        budget.step();
      }
      if (cold_.empty()) {
        cool_one(clean);
        budget.step();
        continue;
      }
      const u32 s = cold_.pop_front();
      if (stats_.get(s) != 0) {
        stats_.set(s, 0);
        hot_[1].push_back(s);  // re-warmed
        ++rewarmed_;
      } else if (claim(s)) {
        return s;
      } else {
        hot_[0].push_back(s);  // pinned: in use, so not cold
      }
      budget.step();
    }
  }

  void insert(u32 slot, u64) {
    stats_.set(slot, 0);
    hot_[0].push_back(slot);
  }
  u64 hit_locks() const { return 0; }
  u64 rewarmed() const { return rewarmed_; }

 private:
  u32 hot_size() const { return hot_[0].size() + hot_[1].size() + hot_[2].size() + hot_[3].size(); }

  int ring_to_cool() const {
    int fullest = -1;
    u32 over = 0;
    for (int r = kHotRings - 1; r >= 0; --r)
      if (hot_[r].size() > ring_quota_ && hot_[r].size() - ring_quota_ > over) {
        over = hot_[r].size() - ring_quota_;
        fullest = r;
      }
    if (fullest >= 0) return fullest;
    for (int r = 0; r < kHotRings; ++r)
      if (!hot_[r].empty()) return r;
    return -1;
  }

  template <class Clean>
  void cool_one(Clean& clean) {
    const int r = ring_to_cool();
    if (r < 0) return;
    const u32 s = hot_[r].pop_front();
    if (stats_.get(s) != 0) {
      stats_.set(s, 0);
      hot_[r + 1 < kHotRings ? r + 1 : r].push_back(s);
    } else if (r > 0) {
      hot_[r - 1].push_back(s);
    } else if (clean(s)) {
      cold_.push_back(s);
    } else {
      hot_[0].push_back(s);  // being changed: in use, not cold
    }
  }

  u32 capacity_;
  u32 cold_target_;
  u32 ring_quota_;
  std::array<SlotRing, kHotRings> hot_;
  SlotRing cold_;
  SlotCounters stats_;
  u64 rewarmed_ = 0;
};

}  // namespace dbrepro::cache
