#pragma once
// The counters every configuration of the page cache reports, kept in one
// place: per partition (updated under the partition's latch, so plain
// integers) and summed for the run. Hits of a lock-free lookup are counted
// in cache-line-sized stripes chosen per thread, so that counting does not
// put back the shared write on every hit that the FIFO policies remove.
#include <array>
#include <atomic>
#include <functional>
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

// One partition's counters (or the sum of all).
struct CacheStats {
  u64 hits = 0;
  u64 misses = 0;          // lookups that did not find the page (reads plus new pages)
  u64 reads = 0;           // pages read from the backing file
  u64 writes = 0;          // dirty pages written back
  u64 read_arounds = 0;    // misses served straight from the file: every frame was in use
  u64 latch_waits = 0;     // partition latch acquisitions that found it held
  u64 latch_wait_ns = 0;   // time spent waiting for it
  u64 inflight_waits = 0;  // lookups that found their page being read and waited for it
  u64 refixes = 0;         // optimistic re-fixes of a remembered frame that held
  u64 refix_failures = 0;  // ... that found the frame changed (then looked it up)
  u64 hit_locks = 0;       // locks the replacement policy took on the hit path
  u64 hit_lock_waits = 0;  // ... that found the lock held
  u64 hit_lock_wait_ns = 0;  // time those hits waited for it
  u64 cold_writes = 0;     // of `writes`: pages cleaned as they entered a clean area (SoQoL's cold ring)

  CacheStats& operator+=(const CacheStats& o) {
    hits += o.hits;
    misses += o.misses;
    reads += o.reads;
    writes += o.writes;
    read_arounds += o.read_arounds;
    latch_waits += o.latch_waits;
    latch_wait_ns += o.latch_wait_ns;
    inflight_waits += o.inflight_waits;
    refixes += o.refixes;
    refix_failures += o.refix_failures;
    hit_locks += o.hit_locks;
    hit_lock_waits += o.hit_lock_waits;
    hit_lock_wait_ns += o.hit_lock_wait_ns;
    cold_writes += o.cold_writes;
    return *this;
  }
  // What happened since `earlier` (a snapshot of the same counters): a phase
  // measured after a warm-up that keeps the cache's contents.
  CacheStats since(const CacheStats& earlier) const {
    CacheStats d = *this;
    d.hits -= earlier.hits;
    d.misses -= earlier.misses;
    d.reads -= earlier.reads;
    d.writes -= earlier.writes;
    d.read_arounds -= earlier.read_arounds;
    d.latch_waits -= earlier.latch_waits;
    d.latch_wait_ns -= earlier.latch_wait_ns;
    d.inflight_waits -= earlier.inflight_waits;
    d.refixes -= earlier.refixes;
    d.refix_failures -= earlier.refix_failures;
    d.hit_locks -= earlier.hit_locks;
    d.hit_lock_waits -= earlier.hit_lock_waits;
    d.hit_lock_wait_ns -= earlier.hit_lock_wait_ns;
    d.cold_writes -= earlier.cold_writes;
    return d;
  }
  double hit_ratio() const { return hits + misses ? static_cast<double>(hits) / static_cast<double>(hits + misses) : 0; }
};

}  // namespace dbrepro
