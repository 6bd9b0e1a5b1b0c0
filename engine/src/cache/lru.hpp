#pragma once
// LRU under one lock: every hit moves the page to the head of the list, so
// every hit takes the lock (what SoQoL's non-blocking design rules out).
#include <mutex>
#include <stdexcept>

#include "cache/hit_lock.hpp"
#include "cache/slot_queues.hpp"

namespace dbrepro::cache {

class Lru {
 public:
  static constexpr const char* kName = "lru";

  explicit Lru(u32 capacity) : list_(capacity) {}

  void hit(u32 slot) {
    HitLockGuard guard(lock_);
    list_.move_to_head(slot);
  }
  void miss(u64) {}

  template <class Claim>
  u32 evict(Claim&& claim) {
    std::lock_guard guard(lock_);
    for (u32 s = list_.tail(); s != kNoSlot; s = list_.newer(s))
      if (claim(s)) {
        list_.remove(s);
        return s;
      }
    throw std::runtime_error("buffer pool: no evictable frame (every frame pinned?)");
  }

  void insert(u32 slot, u64) {
    std::lock_guard guard(lock_);
    list_.push_head(slot);
  }

  u64 hit_locks() const { return lock_.locks(); }  // read while others run
  u64 hit_lock_waits() const { return lock_.waits(); }
  u64 hit_lock_wait_ns() const { return lock_.wait_ns(); }

 private:
  HitLock lock_;
  SlotList list_;
};

}  // namespace dbrepro::cache
