#pragma once
// What the page cache keeps whichever page table finds its pages
// (buffer/page_cache.hpp maps each study to its table): the frames and their
// control blocks, the arena holding their pages, the backing file, the
// replacement state (per partition or shared), the partitions' latches and
// counters. A plain struct: the two page tables (buffer/latched_hash_table.hpp,
// buffer/atomic_page_map.hpp) and the cache itself work on its members.
#include <sys/mman.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "buffer/cache_stats.hpp"
#include "cache/no_eviction.hpp"
#include "cache/slot_queues.hpp"
#include "common/page_size.hpp"
#include "common/types.hpp"
#include "latch/latch.hpp"
#include "latch/timed_acquire.hpp"

namespace dbrepro {

enum class Lookup : u8 {
  kLatchedTable,  // hash buckets under partition latches (E1, E2, E3): buffer/latched_hash_table.hpp
  kAtomicMap,     // one atomic frame number per page id, lock-free hits (E5): buffer/atomic_page_map.hpp
};

struct PageCacheOptions {
  u32 page_size = 8192;
  u64 frames = 0;      // frames the cache may use
  u32 partitions = 1;  // latches of the page table (0: one per bucket)
  u32 buckets = 0;     // hash buckets (0: the frames, rounded up to a power of two, at least 1024)
  u64 key_limit = 0;   // atomic map only: keys are 0..key_limit-1
};

// How a key picks its bucket: the bucket's index mod P is its partition.
struct HashPartitioning {
  static u32 bucket(u64 key, u32 buckets, u32) {
    return static_cast<u32>((key * 0x9E3779B97F4A7C15ull) >> 32) % buckets;
  }
};
// MariaDB's segmented key cache: a block of file f at block number n goes to
// segment (f + n) mod P; inside the segment, a hash of the same number.
// Keys are (file << 48) | block.
struct SegmentPartitioning {
  static u32 segment_number(u64 key) { return static_cast<u32>((key >> 48) + (key & ((u64{1} << 48) - 1))); }
  static u32 bucket(u64 key, u32 buckets, u32 partitions) {
    const u64 n = u64{segment_number(key)};
    const u32 per_partition = buckets / partitions;
    return static_cast<u32>((n / partitions) % per_partition * partitions + n % partitions);
  }
};

// The backing of a cache whose pages are only ever allocated in it.
struct NoBacking {
  void read(u64 key, std::byte*) const {
    throw std::out_of_range("page cache: page " + std::to_string(key) + " not resident and no file behind the cache");
  }
  void write(u64, const std::byte*) const {}
};

// A replacement policy's own options (MyISAM's division limit and age
// threshold), given to each instance the cache makes; none if it has no Options.
template <class R>
struct ReplacementOptionsOf {
  struct type {};
};
template <class R>
  requires requires { typename R::Options; }
struct ReplacementOptionsOf<R> {
  using type = typename R::Options;
};

// A remembered frame, to be re-fixed without the page table (optimistic access).
struct FrameRef {
  u32 frame = cache::kNoSlot;
  u64 key = 0;
  u64 version = 0;
};

template <class C>
struct PageFrames {
  using PartitionLatch = typename C::PartitionLatch;
  using FrameLatch = typename C::FrameLatch;
  using Replacement = typename C::Replacement;
  using Backing = typename C::Backing;
  using ReplacementLatch = typename C::ReplacementLatch;
  using ReplacementOptions = typename ReplacementOptionsOf<Replacement>::type;
  static constexpr bool kCanEvict = !std::is_same_v<Replacement, cache::NoEviction>;
  static constexpr bool kPerPartition = C::kReplacementPerPartition && kCanEvict;
  static constexpr bool kCount = C::kCount;
  static constexpr u64 kNoKey = ~u64{0};
  // Pins of a frame being evicted (or free): an optimistic pin sees it and backs off.
  static constexpr u32 kEvictingPins = 1u << 30;

  // A frame's control block.
  struct Control {
    std::atomic<u64> key{kNoKey};
    u32 next = cache::kNoSlot;    // next frame in the bucket's chain (under the partition latch)
    std::atomic<u32> pins{0};
    std::atomic<u32> io{0};       // 1 while the page is being read in
    std::atomic<bool> dirty{false};
    std::atomic<u64> word{0};     // atomic map: latch + version; latched table: the version
    FrameLatch latch;
  };
  // The replacement state: per partition (its own frames) or shared by all.
  struct Domain {
    std::unique_ptr<Replacement> policy;
    std::vector<u32> free;  // frames holding nothing, taken from the back
    u32 first = 0;          // the domain's frames are first..first+count-1 (slot = frame - first)
    u32 count = 0;
  };
  struct alignas(64) Partition : Domain {
    mutable PartitionLatch latch;  // mutable: stats() reads the counters under it
    CacheStats counters;           // under the latch
  };
  struct SharedDomain : Domain {
    ReplacementLatch latch;  // the shared policy's own latch (OpenEdge's LRU latch)
  };

  // `latches`: the partitions, as many as the page table has latches.
  PageFrames(const PageCacheOptions& o, u32 latches, Backing b, ReplacementOptions r)
      : options(o), replacement_options(r), backing(std::move(b)), frames(o.frames), limit(static_cast<u32>(o.frames)) {
    if (kPerPartition && o.frames < latches) throw std::invalid_argument("frames: fewer than partitions");
    partition_count = latches;
    partitions = std::make_unique<Partition[]>(partition_count);
    void* a = ::mmap(nullptr, arena_bytes(), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (a == MAP_FAILED) throw std::runtime_error(std::string("page cache: mmap: ") + std::strerror(errno));
    arena = static_cast<std::byte*>(a);
    reset_replacement();
  }
  ~PageFrames() { ::munmap(arena, arena_bytes()); }
  PageFrames(const PageFrames&) = delete;
  PageFrames& operator=(const PageFrames&) = delete;

  std::byte* data(u32 f) const { return arena + static_cast<size_t>(f) * options.page_size; }
  u32 frame_of_page(const std::byte* page) const {
    return static_cast<u32>(static_cast<size_t>(page - arena) / options.page_size);
  }
  size_t arena_bytes() const { return options.frames * static_cast<size_t>(options.page_size); }

  // Partition latch, with who had to wait for it and for how long.
  void lock(Partition& p) {
    if constexpr (kCount) {
      if (const LatchWait w = lock_timed(p.latch); w.waited) {
        ++p.counters.latch_waits;
        p.counters.latch_wait_ns += w.ns;
      }
    } else {
      p.latch.lock();
    }
  }
  void unlock(Partition& p) { p.latch.unlock(); }

  void reset_replacement() {
    if constexpr (kPerPartition) {
      for (u32 p = 0; p < partition_count; ++p) {
        Domain& d = partitions[p];
        d.first = static_cast<u32>(u64{limit} * p / partition_count);
        d.count = static_cast<u32>(u64{limit} * (p + 1) / partition_count) - d.first;
        d.policy = make_policy(d.count);
        fill_free(d);
      }
    } else {
      shared.first = 0;
      shared.count = limit;
      shared.policy = make_policy(limit);
      fill_free(shared);
    }
  }
  std::unique_ptr<Replacement> make_policy(u32 capacity) const {
    if constexpr (requires { typename Replacement::Options; })
      return std::make_unique<Replacement>(capacity, replacement_options);
    else
      return std::make_unique<Replacement>(capacity);
  }
  static void fill_free(Domain& d) {
    d.free.clear();
    for (u32 f = d.first + d.count; f-- > d.first;) d.free.push_back(f);  // lowest frame first
  }

  PageCacheOptions options;
  ReplacementOptions replacement_options;
  Backing backing;
  std::vector<Control> frames;
  u32 partition_count = 1;
  std::unique_ptr<Partition[]> partitions;
  SharedDomain shared;
  u32 limit;  // frames in use (restart may shrink it)
  std::byte* arena = nullptr;
  std::atomic<u64> next_key{0};
  StripedCounter striped_hits;
  std::atomic<u64> inflight_waits{0}, refixes{0}, refix_failures{0};
};

}  // namespace dbrepro
