#pragma once
// SIEVE (Zhang et al., NSDI 2024): a FIFO list with a visited bit and a hand
// that moves from the oldest page towards the newest. A hit sets the bit;
// the hand clears set bits as it passes and evicts the first page without
// one, staying where it stopped. New pages go to the head, unvisited.
#include "cache/slot_queues.hpp"

namespace dbrepro::cache {

class Sieve {
 public:
  static constexpr const char* kName = "sieve";

  explicit Sieve(u32 capacity) : list_(capacity), visited_(capacity), capacity_(capacity) {}

  void hit(u32 slot) { visited_.bump(slot, 1); }
  void miss(u64) {}

  template <class Claim>
  u32 evict(Claim&& claim) {
    EvictionBudget budget(capacity_);
    u32 s = hand_ != kNoSlot ? hand_ : list_.tail();
    for (;;) {
      if (visited_.get(s) != 0) {
        visited_.set(s, 0);
      } else if (claim(s)) {
        hand_ = list_.newer(s);
        list_.remove(s);
        return s;
      }
      s = list_.newer(s);
      if (s == kNoSlot) s = list_.tail();
      budget.step();
    }
  }

  void insert(u32 slot, u64) {
    visited_.set(slot, 0);
    list_.push_head(slot);
  }
  u64 hit_locks() const { return 0; }

 private:
  SlotList list_;
  SlotCounters visited_;
  u32 capacity_;
  u32 hand_ = kNoSlot;
};

}  // namespace dbrepro::cache
