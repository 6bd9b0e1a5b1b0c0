#pragma once
// E4's memory-bound sessions as the article ran them (issue 32): one table,
// loaded once into the one buffer cache of the instance, scanned by every
// session. It mirrors Oracle 10.2's buffer cache:
//   - the cache is the engine's one page cache (buffer/page_cache.hpp) in a
//     configuration of its own, sized against the table as the article's
//     180 MB cache against its 46 MB table (cache_over_table), so the table
//     stays cached and nothing is evicted (NoEviction);
//   - its hash buckets are Oracle's hash chains, a group of them guarded by
//     one cache-buffers-chains latch (the cache's partitions:
//     _db_block_hash_latches; `latches`, 1024 by default, an assumption: the
//     article does not report it, and 1024 is Oracle's usual value for a cache
//     of this size);
//   - a session gets a buffer as a consistent get does: the chain's latch,
//     find the buffer, pin it, release the latch; read the rows pinned; the
//     latch again to unpin (kUnpinUnderLatch). A pinned buffer is read
//     without a latch of its own (FrameLatch: none);
//   - the latch spins and then sleeps as Oracle's did (SpinNapLatch:
//     _spin_count tries, 2000 by default, then a nap, doubling). The naps
//     are OpenEdge's schedule (1 ms doubling to 24 ms, blocking_latches.hpp),
//     not Oracle's, which the article does not give either; the other
//     choices are glibc's adaptive mutex (spins a little, then a futex) and
//     the plain futex mutex. Chosen once per run (with_shared_table).
//   - every latch is a HolderPreemptionLatch: per session, acquisitions,
//     waits, time waited, and holds in which the holder was switched out
//     involuntarily (latch/holder_preemption.hpp).
#include <cstring>
#include <stdexcept>
#include <string>

#include "buffer/page_cache.hpp"
#include "buffer/page_guard.hpp"
#include "cache/no_eviction.hpp"
#include "common/types.hpp"
#include "latch/blocking_latches.hpp"
#include "latch/holder_preemption.hpp"
#include "latch/latch.hpp"

namespace dbrepro::sched {

enum class LatchKind : u8 { kSpinNap, kAdaptive, kFutex };

template <class Latch>
struct OracleBufferCacheConfig {
  using PartitionLatch = HolderPreemptionLatch<Latch>;  // a cache-buffers-chains latch
  using ReplacementLatch = NullMutex;                   // nothing is replaced
  using FrameLatch = NullRwLatch;                       // the pin protects a buffer being read
  using Replacement = cache::NoEviction;
  using Partitioning = HashPartitioning;
  using Backing = NoBacking;
  static constexpr Lookup kLookup = Lookup::kLatchedTable;
  static constexpr bool kReplacementPerPartition = false;
  static constexpr bool kUnpinUnderLatch = true;  // unpinning takes the chain's latch again
  static constexpr bool kVersioned = false;
  static constexpr bool kCount = false;  // the latches count, per session
};

struct SharedTableOptions {
  u64 table_bytes = 8 << 20;
  u32 page_size = 8192;
  double cache_over_table = 180.0 / 46.0;  // the article's 180 MB buffer cache over its 46 MB table
  u32 latches = 1024;
};

// The table: pages of 8-byte rows (row n holds n), loaded once.
template <class Latch>
class SharedTable {
 public:
  using Cache = PageCache<OracleBufferCacheConfig<Latch>>;

  explicit SharedTable(const SharedTableOptions& o) : cache_(options(o)) {
    const u64 pages = std::max<u64>(1, o.table_bytes / o.page_size);
    u64 row = 0;
    for (u64 p = 0; p < pages; ++p) {
      const PageId pid = cache_.allocate();
      const ExclusiveGuard<Cache> page(cache_, pid);
      for (u32 off = 0; off + sizeof(u64) <= o.page_size; off += sizeof(u64), ++row)
        std::memcpy(page.page() + off, &row, sizeof row);
    }
  }
  Cache& cache() { return cache_; }
  u64 pages() const { return cache_.page_count(); }
  u64 bytes() const { return cache_.bytes(); }
  u64 cache_bytes() const { return u64{cache_.frame_count()} * cache_.page_size(); }
  u32 latches() const { return cache_.partition_count(); }

 private:
  static PageCacheOptions options(const SharedTableOptions& o) {
    if (!(o.cache_over_table >= 1.0))
      throw std::invalid_argument("cache_over_table: the cache must hold the table (>= 1)");
    const u64 pages = std::max<u64>(1, o.table_bytes / o.page_size);
    PageCacheOptions p;
    p.page_size = o.page_size;
    p.frames = static_cast<u64>(static_cast<double>(pages) * o.cache_over_table);
    p.frames = std::max(p.frames, pages);
    p.partitions = o.latches;
    return p;
  }
  Cache cache_;
};

// Calls f.template operator()<Latch>() with the run's latch type: the one
// dispatch of a run; SpinNapLatch's spin count is set for the call (it is
// process-wide, as OpenEdge's and Oracle's) and restored after it.
template <class F>
decltype(auto) with_latch(LatchKind kind, u32 spin, F&& f) {
  switch (kind) {
    case LatchKind::kAdaptive:
      return f.template operator()<AdaptiveMutex>();
    case LatchKind::kFutex:
      return f.template operator()<PlainMutex>();
    case LatchKind::kSpinNap:
      break;
  }
  struct Restore {
    SpinNapParams saved = spin_nap_params();
    ~Restore() { spin_nap_params() = saved; }
  } restore;
  spin_nap_params().spin = spin;
  return f.template operator()<SpinNapLatch>();
}

}  // namespace dbrepro::sched
