#pragma once
// Latches: short-term mutual exclusion on in-memory structures (pages, hash
// buckets, the log buffer). The Latching policy names the latch types a stack
// uses; NoLatching's types compile to nothing, so a stack without latching
// spends zero instructions on them (the "latching" switch of E1).
#include <atomic>
#include <thread>

#include "common/types.hpp"

namespace dbrepro {

enum class LatchMode : u8 { kShared, kExclusive };

// Test-and-test-and-set spin latch with yield: cheap when uncontended.
class SpinLatch {
 public:
  void lock() {
    for (;;) {
      if (!locked_.exchange(true, std::memory_order_acquire)) return;
      while (locked_.load(std::memory_order_relaxed)) std::this_thread::yield();
    }
  }
  bool try_lock() { return !locked_.load(std::memory_order_relaxed) && !locked_.exchange(true, std::memory_order_acquire); }
  void unlock() { locked_.store(false, std::memory_order_release); }

 private:
  std::atomic<bool> locked_{false};
};

// Reader-writer latch in one word: -1 = exclusive, n > 0 = n readers.
class RwLatch {
 public:
  void lock_shared() {
    for (;;) {
      i32 s = state_.load(std::memory_order_relaxed);
      if (s >= 0 && state_.compare_exchange_weak(s, s + 1, std::memory_order_acquire)) return;
      std::this_thread::yield();
    }
  }
  void unlock_shared() { state_.fetch_sub(1, std::memory_order_release); }
  void lock() {
    for (;;) {
      i32 expected = 0;
      if (state_.compare_exchange_weak(expected, -1, std::memory_order_acquire)) return;
      std::this_thread::yield();
    }
  }
  void unlock() { state_.store(0, std::memory_order_release); }

  void acquire(LatchMode mode) { mode == LatchMode::kShared ? lock_shared() : lock(); }
  void release(LatchMode mode) { mode == LatchMode::kShared ? unlock_shared() : unlock(); }

 private:
  std::atomic<i32> state_{0};
};

// The removed forms: every call is an empty inline function.
struct NullMutex {
  void lock() {}
  bool try_lock() { return true; }
  void unlock() {}
};
struct NullRwLatch {
  void lock_shared() {}
  void unlock_shared() {}
  void lock() {}
  void unlock() {}
  void acquire(LatchMode) {}
  void release(LatchMode) {}
};

struct Latching {
  static constexpr const char* kName = "latching";
  static constexpr bool kEnabled = true;
  using Mutex = SpinLatch;
  using PageLatch = RwLatch;
};

struct NoLatching {
  static constexpr const char* kName = "no latching";
  static constexpr bool kEnabled = false;
  using Mutex = NullMutex;
  using PageLatch = NullRwLatch;
};

// Scoped lock on any of the mutex types above.
template <class M>
class LatchGuard {
 public:
  explicit LatchGuard(M& m) : m_(m) { m_.lock(); }
  ~LatchGuard() { m_.unlock(); }
  LatchGuard(const LatchGuard&) = delete;
  LatchGuard& operator=(const LatchGuard&) = delete;

 private:
  M& m_;
};

}  // namespace dbrepro
