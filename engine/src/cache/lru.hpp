#pragma once
// LRU under one lock: every hit moves the page to the head of the list, so
// every hit takes the lock (what SoQoL's non-blocking design rules out).
#include <atomic>
#include <mutex>
#include <stdexcept>

#include "cache/slot_queues.hpp"

namespace dbrepro::cache {

class Lru {
 public:
  static constexpr const char* kName = "lru";

  explicit Lru(u32 capacity) : list_(capacity) {}

  void hit(u32 slot) {
    std::lock_guard guard(mutex_);
    hit_locks_.store(hit_locks_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);  // under mutex_
    list_.move_to_head(slot);
  }
  void miss(u64) {}

  template <class Claim>
  u32 evict(Claim&& claim) {
    std::lock_guard guard(mutex_);
    for (u32 s = list_.tail(); s != kNoSlot; s = list_.newer(s))
      if (claim(s)) {
        list_.remove(s);
        return s;
      }
    throw std::runtime_error("buffer pool: no evictable frame (every frame pinned?)");
  }

  void insert(u32 slot, u64) {
    std::lock_guard guard(mutex_);
    list_.push_head(slot);
  }

  u64 hit_locks() const { return hit_locks_.load(std::memory_order_relaxed); }  // read while others run

 private:
  std::mutex mutex_;
  SlotList list_;
  std::atomic<u64> hit_locks_{0};
};

}  // namespace dbrepro::cache
