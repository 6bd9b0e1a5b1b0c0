#pragma once
// Counters of the disk-backed pool. Hits are counted in cache-line-sized
// stripes chosen per thread, so that counting does not put back the shared
// write on every hit that the FIFO policies remove.
#include <array>
#include <atomic>
#include <functional>
#include <string>
#include <thread>

#include "common/types.hpp"

namespace dbrepro {

class StripedCounter {
 public:
  void add(u64 n = 1) { stripes_[stripe()].value.fetch_add(n, std::memory_order_relaxed); }
  u64 total() const {
    u64 sum = 0;
    for (const auto& s : stripes_) sum += s.value.load(std::memory_order_relaxed);
    return sum;
  }
  void reset() {
    for (auto& s : stripes_) s.value.store(0, std::memory_order_relaxed);
  }

 private:
  static constexpr size_t kStripes = 32;
  struct alignas(64) Stripe {
    std::atomic<u64> value{0};
  };
  static size_t stripe() {
    thread_local const size_t mine = std::hash<std::thread::id>{}(std::this_thread::get_id()) % kStripes;
    return mine;
  }
  std::array<Stripe, kStripes> stripes_{};
};

// What a run reports about its pool (measured phase only).
struct DiskPoolStats {
  std::string policy;
  double fraction = 0;    // pool frames / database pages at the start of the run
  u64 frames = 0;         // frames the pool may use
  u64 database_pages = 0; // at the start of the run
  u64 hits = 0;
  u64 misses = 0;         // page reads plus new pages
  u64 reads = 0;          // pages read from the file
  u64 writes = 0;         // dirty pages written back
  u64 hit_locks = 0;      // locks the policy took on the hit path
  bool o_direct = false;  // whether the file was opened with O_DIRECT
  double hit_ratio() const { return hits + misses ? static_cast<double>(hits) / static_cast<double>(hits + misses) : 0; }
};

}  // namespace dbrepro
