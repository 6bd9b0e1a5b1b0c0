#pragma once
// 2Q (Johnson and Shasha, VLDB 1994), the full version: new pages enter A1in,
// a FIFO of a quarter of the cache; pages evicted from A1in leave their id in
// A1out (a ghost of half the cache's size); a miss whose id is in A1out goes
// to Am, an LRU list. A hit in A1in changes nothing; a hit in Am moves the
// page to Am's head under Am's lock.
// ghost_hits() counts the misses whose id was still in A1out: the only way a
// page enters Am (Johnson and Shasha's admission to Am). With none, Am stays
// empty and 2Q evicts only from A1in, a FIFO: exactly FIFO's hits and misses
// (so too while fewer pages have been evicted than the cache holds; see
// docs/fifo_cache.md). Counted on the miss path only (under the pool's miss
// latch), read while others run.
#include <atomic>
#include <memory>
#include <mutex>
#include <stdexcept>

#include "cache/hit_lock.hpp"
#include "cache/slot_queues.hpp"

namespace dbrepro::cache {

class TwoQ {
 public:
  static constexpr const char* kName = "2q";

  explicit TwoQ(u32 capacity)
      : in_capacity_(capacity / 4 > 0 ? capacity / 4 : 1),
        capacity_(capacity),
        a1in_(capacity),
        a1out_(capacity / 2),
        am_(capacity),
        in_am_(capacity),
        ids_(std::make_unique<u64[]>(capacity)) {}

  void hit(u32 slot) {
    if (in_am_.get(slot) == 0) return;
    HitLockGuard guard(am_lock_);
    am_.move_to_head(slot);
  }
  void miss(u64 id) {
    from_ghost_ = a1out_.take(id);
    ghost_hits_.store(ghost_hits_.load(std::memory_order_relaxed) + from_ghost_, std::memory_order_relaxed);
  }

  template <class Claim>
  u32 evict(Claim&& claim) {
    EvictionBudget budget(capacity_);
    if (a1in_.size() > in_capacity_ || am_size() == 0) {
      for (u32 n = a1in_.size(); n > 0; --n) {
        const u32 s = a1in_.pop_front();
        if (claim(s)) {
          a1out_.add(ids_[s]);
          return s;
        }
        a1in_.push_back(s);
        budget.step();
      }
    }
    std::lock_guard guard(am_lock_);
    for (u32 s = am_.tail(); s != kNoSlot; s = am_.newer(s))
      if (claim(s)) {
        am_.remove(s);
        in_am_.set(s, 0);
        return s;
      }
    throw std::runtime_error("buffer pool: no evictable frame (every frame pinned?)");
  }

  void insert(u32 slot, u64 id) {
    ids_[slot] = id;
    if (from_ghost_) {
      std::lock_guard guard(am_lock_);
      in_am_.set(slot, 1);
      am_.push_head(slot);
    } else {
      a1in_.push_back(slot);
    }
    from_ghost_ = false;
  }
  u64 hit_locks() const { return am_lock_.locks(); }  // read while others run
  u64 hit_lock_waits() const { return am_lock_.waits(); }
  u64 hit_lock_wait_ns() const { return am_lock_.wait_ns(); }
  u64 ghost_hits() const { return ghost_hits_.load(std::memory_order_relaxed); }

 private:
  u32 am_size() {
    std::lock_guard guard(am_lock_);  // hits reorder Am meanwhile
    return am_.size();
  }

  u32 in_capacity_;
  u32 capacity_;
  SlotRing a1in_;
  GhostFifo a1out_;
  HitLock am_lock_;
  SlotList am_;
  SlotCounters in_am_;
  std::unique_ptr<u64[]> ids_;
  bool from_ghost_ = false;
  std::atomic<u64> ghost_hits_{0};  // one writer (the miss path); atomic for readers elsewhere
};

}  // namespace dbrepro::cache
