#pragma once
// The lock a policy takes on the hit path (LRU's list lock, 2Q's Am lock),
// with what hits paid for it: locks taken on hits, how many of those found
// it held, and the time they waited (latch/timed_acquire.hpp, as the page
// cache's partition latches: an uncontended hit costs a try_lock). Locks
// taken on the miss path (evict, insert) are not counted but do make hits wait.
#include <atomic>
#include <mutex>

#include "common/types.hpp"
#include "latch/timed_acquire.hpp"

namespace dbrepro::cache {

class HitLock {
 public:
  void lock_for_hit() {
    if (const LatchWait w = lock_timed(mutex_); w.waited) {
      add(waits_, 1);
      add(wait_ns_, w.ns);
    }
    add(locks_, 1);
  }
  // The miss path (BasicLockable, for std::lock_guard).
  void lock() { mutex_.lock(); }
  void unlock() { mutex_.unlock(); }

  // Read while others run.
  u64 locks() const { return locks_.load(std::memory_order_relaxed); }
  u64 waits() const { return waits_.load(std::memory_order_relaxed); }
  u64 wait_ns() const { return wait_ns_.load(std::memory_order_relaxed); }

 private:
  // Under mutex_: a plain load and store, no read-modify-write.
  static void add(std::atomic<u64>& counter, u64 n) {
    counter.store(counter.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
  }
  std::mutex mutex_;
  std::atomic<u64> locks_{0}, waits_{0}, wait_ns_{0};
};

// Holds a HitLock taken on the hit path.
class HitLockGuard {
 public:
  explicit HitLockGuard(HitLock& lock) : lock_(lock) { lock_.lock_for_hit(); }
  ~HitLockGuard() { lock_.unlock(); }
  HitLockGuard(const HitLockGuard&) = delete;
  HitLockGuard& operator=(const HitLockGuard&) = delete;

 private:
  HitLock& lock_;
};

}  // namespace dbrepro::cache
