#pragma once
// The partition latches a page cache can be built with, each the mechanism of
// the system it stands for (a compile-time choice of the cache's config):
//   PlainMutex     a futex mutex that sleeps at once (glibc's default
//                  pthread mutex; what std::mutex is);
//   AdaptiveMutex  glibc's PTHREAD_MUTEX_ADAPTIVE_NP: spins a bounded,
//                  self-tuning number of times, then sleeps. MariaDB creates
//                  the key cache's cache_lock with MY_MUTEX_INIT_FAST, which
//                  is this attribute;
//   SpinNapLatch   OpenEdge's latch: test-and-set spun up to -spin times,
//                  then a nap of -nap ms, doubled per retry up to -napmax ms
//                  (defaults are the article's: -spin 25000 -nap 1 -napmax 24).
// All offer lock/try_lock/unlock, so CountedLatch can count who had to wait.
#include <pthread.h>
#include <time.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

#include "common/types.hpp"

namespace dbrepro {

class PlainMutex {
 public:
  static constexpr const char* kName = "futex";
  PlainMutex() { init(nullptr); }
  ~PlainMutex() { ::pthread_mutex_destroy(&m_); }
  PlainMutex(const PlainMutex&) = delete;
  PlainMutex& operator=(const PlainMutex&) = delete;
  void lock() { ::pthread_mutex_lock(&m_); }
  bool try_lock() { return ::pthread_mutex_trylock(&m_) == 0; }
  void unlock() { ::pthread_mutex_unlock(&m_); }

 protected:
  explicit PlainMutex(int type) {
    pthread_mutexattr_t attr;
    ::pthread_mutexattr_init(&attr);
    ::pthread_mutexattr_settype(&attr, type);
    init(&attr);
    ::pthread_mutexattr_destroy(&attr);
  }

 private:
  void init(const pthread_mutexattr_t* attr) {
    if (const int rc = ::pthread_mutex_init(&m_, attr); rc != 0)
      throw std::runtime_error(std::string("pthread_mutex_init: ") + std::strerror(rc));
  }
  pthread_mutex_t m_;
};

class AdaptiveMutex : public PlainMutex {
 public:
  static constexpr const char* kName = "adaptive";
  AdaptiveMutex() : PlainMutex(PTHREAD_MUTEX_ADAPTIVE_NP) {}
};

// OpenEdge's -spin / -nap / -napmax, process-wide as in OpenEdge (broker
// parameters), set once before a run.
struct SpinNapParams {
  u32 spin = 25000;  // test-and-set attempts before a nap
  u32 nap_ms = 1;    // first nap
  u32 napmax_ms = 24;  // naps double up to this
};
inline SpinNapParams& spin_nap_params() {
  static SpinNapParams params;
  return params;
}
inline void validate(const SpinNapParams& p) {
  if (p.nap_ms < 1 || p.nap_ms > 10000)
    throw std::invalid_argument("nap: must be in 1..10000 ms, got " + std::to_string(p.nap_ms));
  if (p.napmax_ms < p.nap_ms || p.napmax_ms > 10000)
    throw std::invalid_argument("napmax: must be in nap (" + std::to_string(p.nap_ms) + " ms)..10000 ms, got " +
                                std::to_string(p.napmax_ms));
}

class SpinNapLatch {
 public:
  static constexpr const char* kName = "spin-nap";
  void lock() {
    const SpinNapParams& p = spin_nap_params();
    u32 nap = p.nap_ms;
    for (;;) {
      for (u32 i = 0; i <= p.spin; ++i)
        if (!held_.load(std::memory_order_relaxed) && !held_.exchange(true, std::memory_order_acquire)) return;
      naps_.fetch_add(1, std::memory_order_relaxed);
      const timespec ts{static_cast<time_t>(nap / 1000), static_cast<long>(nap % 1000) * 1000000L};
      ::nanosleep(&ts, nullptr);
      nap = std::min(nap * 2, p.napmax_ms);
    }
  }
  bool try_lock() { return !held_.load(std::memory_order_relaxed) && !held_.exchange(true, std::memory_order_acquire); }
  void unlock() { held_.store(false, std::memory_order_release); }
  u64 naps() const { return naps_.load(std::memory_order_relaxed); }

 private:
  std::atomic<bool> held_{false};
  std::atomic<u64> naps_{0};
};

}  // namespace dbrepro
