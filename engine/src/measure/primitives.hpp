// The machine's primitive costs that a finding here can depend on, measured in
// a few seconds outside the timed cells (issue 52): a fixed single-thread loop
// (CPU speed), a cache line bounced between two CPUs, a blocking wake-up across
// CPUs and a context switch on one CPU (futex ping-pong, the kernel's path every
// blocking latch takes), contended hand-offs of MariaDB's key cache mutex (a
// pthread mutex of kind PTHREAD_MUTEX_ADAPTIVE_NP, as mysys's
// MY_MUTEX_INIT_FAST makes it) at 4 and 64 threads, memory latency over a buffer
// far larger than any cache (a dependent pointer chase), and the results
// disk's fdatasync and O_DIRECT 4 KiB read latencies.
//
// Header-only: the executable dbrepro-machine (engine/cli/machine_main.cpp)
// compiles it alone, so a fingerprint needs nothing else of the engine.
#pragma once

#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace dbrepro::measure {

using Clock = std::chrono::steady_clock;

inline double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

inline double median(std::vector<double> values) {
  if (values.empty()) return 0.0;
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

inline double percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0.0;
  std::sort(values.begin(), values.end());
  return values[std::min(values.size() - 1, static_cast<size_t>(p * static_cast<double>(values.size())))];
}

// Pins the calling thread to one CPU; false where the CPU is not ours.
inline bool pin_to(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return pthread_setaffinity_np(pthread_self(), sizeof(set), &set) == 0;
}

// The CPUs this process may run on, in order.
inline std::vector<int> usable_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
  return cpus;
}

// --- a fixed single-thread loop --------------------------------------------------

// Seconds for 200 million steps of a multiply-xorshift chain, the best of `attempts`:
// integer work whose every step depends on the last, no memory traffic.
inline double fixed_loop_seconds(int attempts = 3) {
  double best = 1e9;
  for (int attempt = 0; attempt < attempts; ++attempt) {
    const auto start = Clock::now();
    uint64_t x = 0x9E3779B97F4A7C15ULL;
    for (uint64_t i = 0; i < 200'000'000ULL; ++i) {
      x ^= x << 13;
      x ^= x >> 7;
      x *= 0x2545F4914F6CDD1DULL;
    }
    const double took = seconds_since(start);
    if (x == 42) std::abort();  // keeps the chain from being optimised away
    best = std::min(best, took);
  }
  return best;
}

// --- two threads taking turns --------------------------------------------------

inline long futex(std::atomic<int>* word, int op, int value) {
  return syscall(SYS_futex, reinterpret_cast<int*>(word), op, value, nullptr, nullptr, 0);
}

// Nanoseconds per one-way hand-over between two threads taking `rounds` turns, each
// pinned to its CPU (the same CPU for a context switch). Spinning: the hand-over is
// the cache line's transfer; blocking: a futex wait on one side, a wake on the other.
inline double ping_pong_ns(int cpu_a, int cpu_b, bool blocking, int rounds) {
  alignas(64) std::atomic<int> turn{0};
  auto wait_for = [&](int value) {
    while (turn.load(std::memory_order_acquire) != value) {
      if (blocking) futex(&turn, FUTEX_WAIT_PRIVATE, 1 - value);
    }
  };
  auto pass_to = [&](int value) {
    turn.store(value, std::memory_order_release);
    if (blocking) futex(&turn, FUTEX_WAKE_PRIVATE, 1);
  };
  // Both sides on threads of their own: pinning the caller would leave it pinned, and every thread
  // it starts later (the mutex hand-offs') would inherit that one CPU.
  std::thread other([&] {
    pin_to(cpu_b);
    for (int i = 0; i < rounds; ++i) {
      wait_for(1);
      pass_to(0);
    }
  });
  double took = 0;
  std::thread first([&] {
    pin_to(cpu_a);
    const auto start = Clock::now();
    for (int i = 0; i < rounds; ++i) {
      pass_to(1);
      wait_for(0);
    }
    took = seconds_since(start);
  });
  first.join();
  other.join();
  return took * 1e9 / (2.0 * rounds);
}

// --- contended hand-offs of an adaptive mutex ----------------------------------

struct MutexHandoffs {
  int threads = 0;
  double seconds = 0;
  uint64_t acquisitions = 0;
  uint64_t contended = 0;  // acquisitions that found the mutex held (trylock failed first)
  uint64_t handoffs = 0;   // acquisitions by another thread than the last holder
  double ns_per_acquisition = 0;
  double contended_share = 0;
  double handoff_share = 0;
};

// `threads` threads, unpinned, each doing what a key cache hit does in mysys's
// mf_keycache.c: take cache_lock for its bookkeeping (a few dozen dependent
// steps), release it, copy the 1 KiB block outside it; for `seconds`.
inline MutexHandoffs mutex_handoffs(int threads, double seconds) {
  pthread_mutexattr_t attr;
  pthread_mutexattr_init(&attr);
  pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_ADAPTIVE_NP);
  pthread_mutex_t mutex;
  pthread_mutex_init(&mutex, &attr);
  pthread_mutexattr_destroy(&attr);
  std::atomic<bool> stop{false};
  std::atomic<int> ready{0};
  uint64_t acquisitions = 0, handoffs = 0;
  std::atomic<uint64_t> contended{0};
  int last_holder = -1;
  uint64_t shared = 1;
  static char block[1024];
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      char copy[1024];
      uint64_t waited = 0;
      ready.fetch_add(1);
      while (ready.load() < threads) std::this_thread::yield();
      while (!stop.load(std::memory_order_relaxed)) {
        if (pthread_mutex_trylock(&mutex) != 0) {
          ++waited;
          pthread_mutex_lock(&mutex);
        }
        ++acquisitions;
        handoffs += last_holder != t;
        last_holder = t;
        for (int i = 0; i < 32; ++i) shared = shared * 6364136223846793005ULL + 1442695040888963407ULL;
        pthread_mutex_unlock(&mutex);
        std::memcpy(copy, block, sizeof(copy));
        asm volatile("" : : "r"(copy) : "memory");
      }
      contended.fetch_add(waited);
    });
  }
  while (ready.load() < threads) std::this_thread::yield();
  const auto start = Clock::now();
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  stop.store(true);
  for (auto& thread : pool) thread.join();
  const double took = seconds_since(start);
  pthread_mutex_destroy(&mutex);
  MutexHandoffs out{threads, took, acquisitions, contended.load(), handoffs, 0, 0, 0};
  if (acquisitions) {
    out.ns_per_acquisition = took * 1e9 / static_cast<double>(acquisitions);
    out.contended_share = static_cast<double>(out.contended) / static_cast<double>(acquisitions);
    out.handoff_share = static_cast<double>(handoffs) / static_cast<double>(acquisitions);
  }
  return out;
}

// --- memory latency -------------------------------------------------------------

// Nanoseconds per dependent load over `bytes` of memory: one 64-byte line after
// another in a random cycle, so neither the prefetchers nor the caches hide DRAM.
inline double memory_latency_ns(size_t bytes, size_t loads) {
  const size_t lines = bytes / 64;
  std::vector<uint64_t> order(lines);
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), std::mt19937_64(20081));
  auto* memory = static_cast<uint64_t*>(std::aligned_alloc(64, lines * 64));
  if (memory == nullptr) return 0.0;
  for (size_t i = 0; i < lines; ++i) memory[order[i] * 8] = order[(i + 1) % lines] * 8;
  uint64_t at = order[0] * 8;
  for (size_t i = 0; i < lines; ++i) at = memory[at];  // one lap to fault the pages in
  const auto start = Clock::now();
  for (size_t i = 0; i < loads; ++i) at = memory[at];
  const double took = seconds_since(start);
  if (at == 1) std::abort();
  std::free(memory);
  return took * 1e9 / static_cast<double>(loads);
}

// --- the results disk -------------------------------------------------------------

struct DiskLatency {
  std::optional<double> fdatasync_us_median, fdatasync_us_p90;
  std::optional<double> odirect_read_us_median, odirect_read_us_p90;
  std::string fdatasync_error, odirect_error;
};

// fdatasync after a 4 KiB write, `syncs` times, and O_DIRECT reads of random 4 KiB
// blocks of a 64 MiB file, `reads` times, in `folder` (the run's results disk).
inline DiskLatency disk_latency(const std::string& folder, int syncs, int reads) {
  DiskLatency out;
  const std::string path = folder + "/.dbrepro-machine-" + std::to_string(getpid());
  alignas(4096) static char block[4096];
  std::memset(block, 'x', sizeof(block));
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) {
    out.fdatasync_error = out.odirect_error = std::string("open: ") + std::strerror(errno);
    return out;
  }
  std::vector<double> us;
  for (int i = 0; i < syncs; ++i) {
    const auto start = Clock::now();
    if (::pwrite(fd, block, sizeof(block), static_cast<off_t>(i % 16) * 4096) != 4096 || ::fdatasync(fd) != 0) {
      out.fdatasync_error = std::string("write or fdatasync: ") + std::strerror(errno);
      break;
    }
    us.push_back(seconds_since(start) * 1e6);
  }
  if (out.fdatasync_error.empty()) {
    out.fdatasync_us_median = median(us);
    out.fdatasync_us_p90 = percentile(us, 0.9);
  }
  constexpr off_t kFileBytes = 64 << 20;
  for (off_t at = 0; at < kFileBytes && out.odirect_error.empty(); at += 4096)
    if (::pwrite(fd, block, sizeof(block), at) != 4096) out.odirect_error = std::string("write: ") + std::strerror(errno);
  ::fsync(fd);
  ::close(fd);
  if (out.odirect_error.empty()) {
    const int direct = ::open(path.c_str(), O_RDONLY | O_DIRECT | O_CLOEXEC);
    if (direct < 0) {
      out.odirect_error = std::string("open O_DIRECT: ") + std::strerror(errno);
    } else {
      std::mt19937_64 random(7);
      us.clear();
      for (int i = 0; i < reads; ++i) {
        const off_t at = static_cast<off_t>(random() % (kFileBytes / 4096)) * 4096;
        const auto start = Clock::now();
        if (::pread(direct, block, sizeof(block), at) != 4096) {
          out.odirect_error = std::string("pread: ") + std::strerror(errno);
          break;
        }
        us.push_back(seconds_since(start) * 1e6);
      }
      ::close(direct);
      if (out.odirect_error.empty()) {
        out.odirect_read_us_median = median(us);
        out.odirect_read_us_p90 = percentile(us, 0.9);
      }
    }
  }
  ::unlink(path.c_str());
  return out;
}

}  // namespace dbrepro::measure
