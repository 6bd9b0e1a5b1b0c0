#pragma once
// CLOCK: a FIFO with one reference bit per page. A hit sets the bit; the
// eviction scan clears a set bit and sends the page round again. New pages
// start with the bit clear (libCacheSim's Clock with init_freq=0, 1 bit).
#include "cache/slot_queues.hpp"

namespace dbrepro::cache {

class Clock {
 public:
  static constexpr const char* kName = "clock";

  explicit Clock(u32 capacity) : ring_(capacity), referenced_(capacity), capacity_(capacity) {}

  void hit(u32 slot) { referenced_.bump(slot, 1); }
  void miss(u64) {}

  template <class Claim>
  u32 evict(Claim&& claim) {
    EvictionBudget budget(capacity_);
    for (;;) {
      const u32 s = ring_.pop_front();
      if (referenced_.get(s) != 0) {
        referenced_.set(s, 0);
      } else if (claim(s)) {
        return s;
      }
      ring_.push_back(s);  // second chance, or pinned
      budget.step();
    }
  }

  void insert(u32 slot, u64) {
    referenced_.set(slot, 0);
    ring_.push_back(slot);
  }
  u64 hit_locks() const { return 0; }

 private:
  SlotRing ring_;
  SlotCounters referenced_;
  u32 capacity_;
};

}  // namespace dbrepro::cache
