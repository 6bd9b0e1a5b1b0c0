#pragma once
// S3-FIFO (Yang et al., SOSP 2023): a small FIFO for new pages, a main FIFO
// with a 2-bit frequency (a CLOCK), and a ghost FIFO of ids evicted from the
// small queue. Rules aligned with libCacheSim's S3FIFO.c (the oracle of
// tests/test_cache_oracle.py), which differ in places from the paper's text:
//  - sizes: small = (i64)(capacity * 0.1), main = capacity - small,
//    ghost = (i64)(capacity * 0.9) ids;
//  - a hit adds 1 to the page's frequency (kept saturated at 3: every rule
//    below compares with 1 or 2, or takes min(freq, 3));
//  - a miss first looks in the ghost and forgets the id there; a ghost hit
//    inserts into main, any other into small, except that before the first
//    eviction a page goes to main once small is full;
//  - eviction evicts from main when main is over its size or small is empty,
//    else from small;
//  - from small: the oldest page with freq >= 2 moves to main with freq 0,
//    repeatedly, until one page with freq < 2 leaves (its id into the ghost);
//  - from main: the oldest page with freq >= 1 is reinserted with
//    min(freq, 3) - 1, until one with freq 0 leaves.
// A pinned page (claim fails) counts as in use: from small it moves to main,
// in main it goes round again.
// ghost_hits() counts the misses found in the ghost (each goes straight to
// main): how often the ghost changed where a page went. Miss path only.
#include <atomic>
#include <memory>

#include "cache/slot_queues.hpp"

namespace dbrepro::cache {

class S3Fifo {
 public:
  static constexpr const char* kName = "s3fifo";
  static constexpr double kSmallRatio = 0.1;
  static constexpr double kGhostRatio = 0.9;
  static constexpr u8 kMoveToMain = 2;

  explicit S3Fifo(u32 capacity)
      : small_capacity_(static_cast<u32>(static_cast<double>(capacity) * kSmallRatio)),
        main_capacity_(capacity - small_capacity_),
        capacity_(capacity),
        small_(capacity),
        main_(capacity),
        ghost_(static_cast<u64>(static_cast<double>(capacity) * kGhostRatio)),
        freq_(capacity),
        ids_(std::make_unique<u64[]>(capacity)) {}

  void hit(u32 slot) { freq_.bump(slot, 3); }
  void miss(u64 id) {
    ghost_hit_ = ghost_.take(id);
    ghost_hits_.store(ghost_hits_.load(std::memory_order_relaxed) + ghost_hit_, std::memory_order_relaxed);
  }

  template <class Claim>
  u32 evict(Claim&& claim) {
    has_evicted_ = true;
    EvictionBudget budget(capacity_);
    for (;;) {
      const u32 s = main_.size() > main_capacity_ || small_.empty() ? evict_main(claim, budget)
                                                                     : evict_small(claim, budget);
      if (s != kNoSlot) return s;
    }
  }

  void insert(u32 slot, u64 id) {
    ids_[slot] = id;
    freq_.set(slot, 0);
    if (ghost_hit_ || (!has_evicted_ && small_.size() >= small_capacity_))
      main_.push_back(slot);
    else
      small_.push_back(slot);
    ghost_hit_ = false;
  }
  u64 hit_locks() const { return 0; }
  u64 ghost_hits() const { return ghost_hits_.load(std::memory_order_relaxed); }

 private:
  template <class Claim>
  u32 evict_small(Claim& claim, EvictionBudget& budget) {
    while (!small_.empty()) {
      const u32 s = small_.pop_front();
      if (freq_.get(s) >= kMoveToMain) {
        freq_.set(s, 0);
        main_.push_back(s);
      } else if (claim(s)) {
        ghost_.add(ids_[s]);
        return s;
      } else {
        main_.push_back(s);  // pinned: in use, as good as a hit
      }
      budget.step();
    }
    return kNoSlot;
  }

  template <class Claim>
  u32 evict_main(Claim& claim, EvictionBudget& budget) {
    while (!main_.empty()) {
      const u32 s = main_.pop_front();
      const u8 f = freq_.get(s);
      if (f >= 1) {
        freq_.set(s, static_cast<u8>((f < 3 ? f : 3) - 1));
        main_.push_back(s);
      } else if (claim(s)) {
        return s;
      } else {
        main_.push_back(s);
      }
      budget.step();
    }
    return kNoSlot;
  }

  u32 small_capacity_;
  u32 main_capacity_;
  u32 capacity_;
  SlotRing small_;
  SlotRing main_;
  GhostFifo ghost_;
  SlotCounters freq_;
  std::unique_ptr<u64[]> ids_;
  bool ghost_hit_ = false;
  bool has_evicted_ = false;
  std::atomic<u64> ghost_hits_{0};  // one writer (the miss path); atomic for readers elsewhere
};

}  // namespace dbrepro::cache
