#pragma once
// FIFO: pages leave in the order they came; a hit changes nothing.
#include "cache/slot_queues.hpp"

namespace dbrepro::cache {

class Fifo {
 public:
  static constexpr const char* kName = "fifo";

  explicit Fifo(u32 capacity) : ring_(capacity), capacity_(capacity) {}

  void hit(u32) {}
  void miss(u64) {}

  template <class Claim>
  u32 evict(Claim&& claim) {
    EvictionBudget budget(capacity_);
    for (;;) {
      const u32 s = ring_.pop_front();
      if (claim(s)) return s;
      ring_.push_back(s);  // pinned: it waits another round
      budget.step();
    }
  }

  void insert(u32 slot, u64) { ring_.push_back(slot); }
  u64 hit_locks() const { return 0; }

 private:
  SlotRing ring_;
  u32 capacity_;
};

}  // namespace dbrepro::cache
