#pragma once
// The one page cache of the engine. Every study's pages go through it; a
// study is a configuration (a Config type, chosen at compile time, so a
// removed mechanism costs nothing):
//
//   E1 (Shore's buffer manager)  buffer/buffer_pool.hpp: one partition per hash
//       bucket, each with its own latch; pins under the bucket latch; a
//       reader/writer latch per frame; holds the whole database (no eviction).
//   E2 (MyISAM's key cache)      keycache/key_cache.hpp: P partitions are the
//       key cache's segments (P = 1 is "segments off"), each with its own
//       mutex, its own frames and its own midpoint-LRU list; a block goes to
//       segment (file + block) mod P, as MariaDB.
//   E3 (OpenEdge's buffer pool)  openedge/pool.hpp: buckets hashed from
//       the page, bucket b guarded by latch b mod L (the latch factor or a
//       fixed count chooses L), exclusive spin-and-nap latches, one clock
//       over all frames; frames re-fixed optimistically by version.
//   E5 (a disk-backed pool)      buffer/disk_pool.hpp: a page-indexed atomic
//       map and a latch+version word per frame (vmcache, LeanStore), so a hit
//       takes no lock; misses one at a time under partition 0's latch.
//
// How a page is found (latched table): hash the key to a bucket; bucket b
// belongs to partition b mod P; take that partition's latch, walk the
// bucket's chain of frame control blocks, pin the frame, tell the partition's
// (or the shared) replacement policy of the hit, let the latch go, then take
// the frame's own latch in the caller's mode.
// How a miss is served: a frame is taken (free, or a victim the policy
// chooses among unpinned frames, unlinked under its partition's latch); the
// frame is linked under the page's key marked "being read" and pinned; the
// partition latch is released for the read (no latch is held across I/O);
// others who ask for that page find it, pin it and wait until the reader
// publishes it (MyISAM's wait_on_queue, OpenEdge's and Shore's in-transit
// frames). A dirty victim is written back under its partition's latch before
// it is unlinked (so nobody reads a stale copy); E2 and E3 never dirty a page,
// and the E5 path writes its victims outside any latch (SoQoL's cold ring,
// which holds clean pages only, writes a page back as it enters the ring,
// under the miss latch: clean_for_cold).
#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "buffer/cache_stats.hpp"
#include "buffer/frame_state.hpp"
#include "cache/no_eviction.hpp"
#include "cache/slot_queues.hpp"
#include "common/page_size.hpp"
#include "common/types.hpp"
#include "latch/latch.hpp"
#include "latch/timed_acquire.hpp"

namespace dbrepro {

enum class Lookup : u8 {
  kLatchedTable,  // hash buckets under partition latches (E1, E2, E3)
  kAtomicMap,     // one atomic frame number per page id, lock-free hits (E5)
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
class PageCache {
 public:
  using PartitionLatch = typename C::PartitionLatch;
  using FrameLatch = typename C::FrameLatch;
  using Replacement = typename C::Replacement;
  using Partitioning = typename C::Partitioning;
  using Backing = typename C::Backing;
  using ReplacementLatch = typename C::ReplacementLatch;
  static constexpr bool kAtomicMap = C::kLookup == Lookup::kAtomicMap;
  static constexpr bool kCanEvict = !std::is_same_v<Replacement, cache::NoEviction>;
  static constexpr bool kPerPartition = C::kReplacementPerPartition && kCanEvict;
  static constexpr bool kUnpinUnderLatch = C::kUnpinUnderLatch;
  static constexpr bool kCount = C::kCount;
  static constexpr u64 kNoKey = ~u64{0};
  using ReplacementOptions = typename ReplacementOptionsOf<Replacement>::type;

  explicit PageCache(const PageCacheOptions& options, Backing backing = Backing{},
                     ReplacementOptions replacement_options = {})
      : options_(options),
        replacement_options_(replacement_options),
        backing_(std::move(backing)),
        frames_(options.frames),
        limit_(options.frames) {
    check_page_size("page_size", options.page_size, kMinBlockSize);
    if (options.frames == 0 || options.frames >= cache::kNoSlot)
      throw std::invalid_argument("frames: must be in 1..2^32-2, got " + std::to_string(options.frames));
    if constexpr (kAtomicMap) {
      if (options.partitions != 1) throw std::invalid_argument("partitions: the atomic map has one miss latch");
      if (options.key_limit == 0) throw std::invalid_argument("key_limit: the atomic map needs the key range");
      frame_of_ = std::make_unique<std::atomic<u32>[]>(options.key_limit);
      for (u64 k = 0; k < options.key_limit; ++k) frame_of_[k].store(cache::kNoSlot, std::memory_order_relaxed);
    } else {
      u32 buckets = options.buckets;
      if (buckets == 0) {
        buckets = 1024;
        while (buckets < options.frames) buckets <<= 1;
      }
      const u32 partitions = options.partitions ? options.partitions : buckets;
      if (partitions > buckets) throw std::invalid_argument("partitions: more than the buckets");
      buckets = (buckets + partitions - 1) / partitions * partitions;  // every partition the same number of buckets
      heads_.assign(buckets, cache::kNoSlot);
      partition_count_ = partitions;
    }
    if (kPerPartition && options.frames < partition_count_)
      throw std::invalid_argument("frames: fewer than partitions");
    partitions_ = std::make_unique<Partition[]>(partition_count_);
    void* arena = ::mmap(nullptr, arena_bytes(), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                         -1, 0);
    if (arena == MAP_FAILED) throw std::runtime_error(std::string("page cache: mmap: ") + std::strerror(errno));
    arena_ = static_cast<std::byte*>(arena);
    reset_replacement();
  }
  ~PageCache() { ::munmap(arena_, arena_bytes()); }
  PageCache(const PageCache&) = delete;
  PageCache& operator=(const PageCache&) = delete;

  // ---- pages by key -------------------------------------------------------

  // A new zero-filled page under the next free key, resident and dirty.
  PageId allocate() {
    const u64 key = next_key_.fetch_add(1);
    if constexpr (kAtomicMap) {
      if (key >= options_.key_limit) {
        next_key_.fetch_sub(1);
        throw std::runtime_error("page cache: more than " + std::to_string(options_.key_limit) + " pages");
      }
      const u32 f = map_fill(key, /*read=*/false);
      std::memset(data(f), 0, options_.page_size);
      frames_[f].dirty.store(true, std::memory_order_relaxed);
      frame_state::release_exclusive(frames_[f].word);
    } else {
      u32 f;
      try {
        f = table_load(key, /*read=*/false, /*read_around=*/false);
      } catch (...) {
        next_key_.fetch_sub(1);  // no frame: the page was not made, it does not count
        throw;
      }
      std::memset(data(f), 0, options_.page_size);
      frames_[f].dirty.store(true, std::memory_order_relaxed);
      publish(f);
      unpin(key, f);
    }
    return static_cast<PageId>(key);
  }

  // The page, pinned and latched in `mode` (read from the backing on a miss).
  std::byte* fix(u64 key, LatchMode mode = LatchMode::kShared) {
    if constexpr (kAtomicMap) {
      return data(map_fix(key, mode));
    } else {
      const u32 f = table_pin(key, /*read_around=*/false);
      frames_[f].latch.acquire(mode);
      return data(f);
    }
  }

  void unfix(u64 key, std::byte* page, LatchMode mode = LatchMode::kShared) {
    const u32 f = frame_of_page(page);
    if constexpr (kAtomicMap) {
      if (mode == LatchMode::kExclusive) {
        frames_[f].dirty.store(true, std::memory_order_relaxed);
        frame_state::release_exclusive(frames_[f].word);
      } else {
        frame_state::release_shared(frames_[f].word);
      }
    } else {
      if (mode == LatchMode::kExclusive) {
        frames_[f].dirty.store(true, std::memory_order_relaxed);
        if constexpr (C::kVersioned) frames_[f].word.fetch_add(1, std::memory_order_release);
      }
      frames_[f].latch.release(mode);
      unpin(key, f);
    }
  }

  // Copies the page to `out` (MyISAM's key_cache_read: pin the block under
  // the segment latch, copy it out without the latch, unpin). A miss with
  // every frame in use reads around the cache, as MyISAM does.
  void read(u64 key, std::byte* out) requires(!kAtomicMap) {
    const u32 f = table_pin(key, /*read_around=*/true);
    if (f == cache::kNoSlot) {
      backing_.read(key, out);
      return;
    }
    frames_[f].latch.acquire(LatchMode::kShared);
    std::memcpy(out, data(f), options_.page_size);
    frames_[f].latch.release(LatchMode::kShared);
    unpin(key, f);
  }

  // Optimistic access (OpenEdge 12): remember the frame a fixed page is in;
  // later, pin it again without the page table if it still holds that page
  // unchanged (nullptr: it does not; look it up instead).
  FrameRef remember(u64 key, const std::byte* page) const requires(C::kVersioned) {
    const u32 f = frame_of_page(page);
    return {f, key, frames_[f].word.load(std::memory_order_acquire)};
  }
  std::byte* refix(const FrameRef& ref, LatchMode mode = LatchMode::kShared) requires(C::kVersioned && !kAtomicMap) {
    Control& c = frames_[ref.frame];
    const u32 before = c.pins.fetch_add(1, std::memory_order_acquire);
    if (before >= kEvictingPins || c.key.load(std::memory_order_acquire) != ref.key ||
        c.word.load(std::memory_order_acquire) != ref.version || c.io.load(std::memory_order_acquire) != 0) {
      c.pins.fetch_sub(1, std::memory_order_release);
      refix_failures_.fetch_add(1, std::memory_order_relaxed);
      return nullptr;
    }
    refixes_.fetch_add(1, std::memory_order_relaxed);
    c.latch.acquire(mode);
    if (c.word.load(std::memory_order_acquire) != ref.version) {  // changed while we took the latch
      c.latch.release(mode);
      c.pins.fetch_sub(1, std::memory_order_release);
      return nullptr;
    }
    return data(ref.frame);
  }

  // Drops a page from the cache (written back if dirty); false if pinned or
  // absent. The frame stays with the replacement policy, holding nothing,
  // and is the next one it reclaims.
  bool evict(u64 key) requires(!kAtomicMap && kCanEvict) {
    const u32 b = bucket_of(key);
    Partition& p = partition_of_bucket(b);
    lock(p);
    const u32 f = find(b, key);
    const bool done = f != cache::kNoSlot && claim_locked(p, f);
    if (done) frames_[f].pins.store(0, std::memory_order_release);
    unlock(p);
    return done;
  }

  // Every dirty page to the backing (no page may be fixed meanwhile).
  void flush() {
    for (u32 f = 0; f < limit_; ++f) {
      Control& c = frames_[f];
      const u64 key = c.key.load(std::memory_order_relaxed);
      if (key != kNoKey && c.dirty.load(std::memory_order_relaxed)) {
        backing_.write(key, data(f));
        c.dirty.store(false, std::memory_order_relaxed);
        counters_of_frame(f).writes += 1;
      }
    }
  }

  // A cold restart (no page fixed meanwhile): dirty pages written, the cache
  // emptied, `frames` frames from now on, counters zeroed.
  void restart(u64 frames) {
    if (frames == 0 || frames > options_.frames)
      throw std::invalid_argument("frames: must be in 1.." + std::to_string(options_.frames));
    flush();
    for (u32 f = 0; f < limit_; ++f) {
      Control& c = frames_[f];
      const u64 key = c.key.load(std::memory_order_relaxed);
      if constexpr (kAtomicMap) {
        if (key != kNoKey) frame_of_[key].store(cache::kNoSlot, std::memory_order_relaxed);
        c.word.store(0, std::memory_order_relaxed);
      }
      c.key.store(kNoKey, std::memory_order_relaxed);
      c.next = cache::kNoSlot;
      c.pins.store(0, std::memory_order_relaxed);
    }
    if constexpr (!kAtomicMap) std::fill(heads_.begin(), heads_.end(), cache::kNoSlot);
    ::madvise(arena_, arena_bytes(), MADV_DONTNEED);  // the memory of the old contents goes back
    limit_ = static_cast<u32>(frames);
    reset_replacement();
    reset_stats();
  }

  // ---- what it reports --------------------------------------------------

  CacheStats stats() const {
    CacheStats sum;
    for (u32 p = 0; p < partition_count_; ++p) sum += partition_stats(p);
    if constexpr (kPerPartition) {
      for (u32 p = 0; p < partition_count_; ++p) add_hit_locks(sum, *partitions_[p].policy);
    } else {
      add_hit_locks(sum, *shared_.policy);
    }
    sum.hits += striped_hits_.total();
    sum.inflight_waits += inflight_waits_.load(std::memory_order_relaxed);
    sum.refixes += refixes_.load(std::memory_order_relaxed);
    sum.refix_failures += refix_failures_.load(std::memory_order_relaxed);
    return sum;
  }
  // Each partition's counters under its latch; read while others run, the
  // sum over partitions is a snapshot, not a consistent cut.
  CacheStats partition_stats(u32 p) const {
    LatchGuard g(partitions_[p].latch);
    return partitions_[p].counters;
  }
  // May run while others use the cache (E2 resets after its warm-up with the
  // workers still running): each partition's counters under its latch.
  void reset_stats() {
    for (u32 p = 0; p < partition_count_; ++p) {
      LatchGuard g(partitions_[p].latch);
      partitions_[p].counters = {};
    }
    striped_hits_.reset();
    inflight_waits_.store(0);
    refixes_.store(0);
    refix_failures_.store(0);
  }

  u32 pin_count(u64 key) requires(!kAtomicMap) {
    const u32 b = bucket_of(key);
    Partition& p = partition_of_bucket(b);
    LatchGuard g(p.latch);
    const u32 f = find(b, key);
    return f == cache::kNoSlot ? 0 : frames_[f].pins.load(std::memory_order_relaxed);
  }
  bool resident(u64 key) {
    if constexpr (kAtomicMap) {
      return frame_of_[key].load(std::memory_order_acquire) != cache::kNoSlot;
    } else {
      const u32 b = bucket_of(key);
      Partition& p = partition_of_bucket(b);
      LatchGuard g(p.latch);
      return find(b, key) != cache::kNoSlot;
    }
  }
  u64 resident_pages() const {
    u64 n = 0;
    for (u32 f = 0; f < limit_; ++f) n += frames_[f].key.load(std::memory_order_relaxed) != kNoKey;
    return n;
  }
  u32 partition_of(u64 key) const requires(!kAtomicMap) { return bucket_of(key) % partition_count_; }

  u32 page_size() const { return options_.page_size; }
  u64 page_count() const { return next_key_.load(); }  // pages allocated here
  u64 bytes() const { return page_count() * options_.page_size; }
  u32 frame_count() const { return limit_; }
  u32 partition_count() const { return partition_count_; }
  u32 bucket_count() const { return static_cast<u32>(heads_.size()); }
  const PageCacheOptions& options() const { return options_; }
  Backing& backing() { return backing_; }
  const Backing& backing() const { return backing_; }
  const Replacement& policy(u32 p = 0) const {
    if constexpr (kPerPartition) return *partitions_[p].policy;
    else return *shared_.policy;
  }
  PartitionLatch& partition_latch(u32 p) { return partitions_[p].latch; }

 private:
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

  // Locks on the hit path; waits only where the policy has a lock there (LRU, 2Q).
  static void add_hit_locks(CacheStats& sum, const Replacement& policy) {
    sum.hit_locks += policy.hit_locks();
    if constexpr (requires { policy.hit_lock_waits(); }) {
      sum.hit_lock_waits += policy.hit_lock_waits();
      sum.hit_lock_wait_ns += policy.hit_lock_wait_ns();
    }
  }

  std::byte* data(u32 f) const { return arena_ + static_cast<size_t>(f) * options_.page_size; }
  u32 frame_of_page(const std::byte* page) const {
    return static_cast<u32>(static_cast<size_t>(page - arena_) / options_.page_size);
  }
  size_t arena_bytes() const { return options_.frames * static_cast<size_t>(options_.page_size); }
  u32 bucket_of(u64 key) const { return Partitioning::bucket(key, static_cast<u32>(heads_.size()), partition_count_); }
  Partition& partition_of_bucket(u32 b) { return partitions_[b % partition_count_]; }
  CacheStats& counters_of_frame(u32 f) {
    if constexpr (kAtomicMap) return partitions_[0].counters;
    else {
      const u64 key = frames_[f].key.load(std::memory_order_relaxed);
      return key == kNoKey ? partitions_[0].counters : partition_of_bucket(bucket_of(key)).counters;
    }
  }

  void reset_replacement() {
    if constexpr (kPerPartition) {
      for (u32 p = 0; p < partition_count_; ++p) {
        Domain& d = partitions_[p];
        d.first = static_cast<u32>(u64{limit_} * p / partition_count_);
        d.count = static_cast<u32>(u64{limit_} * (p + 1) / partition_count_) - d.first;
        d.policy = make_policy(d.count);
        fill_free(d);
      }
    } else {
      shared_.first = 0;
      shared_.count = limit_;
      shared_.policy = make_policy(limit_);
      fill_free(shared_);
    }
  }
  std::unique_ptr<Replacement> make_policy(u32 capacity) const {
    if constexpr (requires { typename Replacement::Options; })
      return std::make_unique<Replacement>(capacity, replacement_options_);
    else
      return std::make_unique<Replacement>(capacity);
  }
  static void fill_free(Domain& d) {
    d.free.clear();
    for (u32 f = d.first + d.count; f-- > d.first;) d.free.push_back(f);  // lowest frame first
  }

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

  // ---- latched table ----------------------------------------------------

  u32 find(u32 b, u64 key) const {
    u32 f = heads_[b];
    while (f != cache::kNoSlot && frames_[f].key.load(std::memory_order_relaxed) != key) f = frames_[f].next;
    return f;
  }
  void link(u32 b, u32 f) {
    frames_[f].next = heads_[b];
    heads_[b] = f;
  }
  void unlink(u32 b, u32 f) {
    u32* at = &heads_[b];
    while (*at != f) at = &frames_[*at].next;
    *at = frames_[f].next;
    frames_[f].next = cache::kNoSlot;
  }

  // The frame holding `key`, pinned and published (read in if need be);
  // kNoSlot only with read_around, when every frame is in use.
  u32 table_pin(u64 key, bool read_around) {
    for (;;) {
      const u32 b = bucket_of(key);
      Partition& p = partition_of_bucket(b);
      lock(p);
      const u32 f = find(b, key);
      if (f != cache::kNoSlot) {
        frames_[f].pins.fetch_add(1, std::memory_order_acquire);
        if constexpr (kCount) ++p.counters.hits;
        if constexpr (kPerPartition) p.policy->hit(f - p.first);
        else if constexpr (kCanEvict) shared_.policy->hit(f);
        unlock(p);
        if constexpr (kCanEvict) {
          if (!wait_published(f, key)) continue;  // its read failed: look again
        }
        return f;
      }
      unlock(p);
      if constexpr (!kCanEvict) {
        NoBacking{}.read(key, nullptr);  // throws: this configuration never misses
      } else {
        const u32 loaded = table_load(key, /*read=*/true, read_around);
        if (loaded == cache::kNoSlot) return cache::kNoSlot;
        if (loaded == kRetry) continue;
        return loaded;
      }
    }
  }
  static constexpr u32 kRetry = cache::kNoSlot - 1;

  // Waits while frame f is being read in; false if that read failed.
  bool wait_published(u32 f, u64 key) {
    Control& c = frames_[f];
    u32 io = c.io.load(std::memory_order_acquire);
    if (io == 0) return true;
    inflight_waits_.fetch_add(1, std::memory_order_relaxed);
    while (io != 0) {
      c.io.wait(io, std::memory_order_acquire);
      io = c.io.load(std::memory_order_acquire);
    }
    if (c.key.load(std::memory_order_acquire) == key) return true;
    c.pins.fetch_sub(1, std::memory_order_release);
    return false;
  }
  void publish(u32 f) {
    frames_[f].io.store(0, std::memory_order_release);
    frames_[f].io.notify_all();
  }

  void unpin(u64 key, u32 f) {
    if constexpr (kUnpinUnderLatch) {
      Partition& p = partition_of_bucket(bucket_of(key));
      lock(p);
      frames_[f].pins.fetch_sub(1, std::memory_order_release);
      unlock(p);
    } else {
      frames_[f].pins.fetch_sub(1, std::memory_order_release);
    }
  }

  // Under p's latch, with f in it: takes f if unpinned and not in flight,
  // writes it back if dirty, unlinks it. The frame is left with kEvictingPins.
  bool claim_locked(Partition& p, u32 f) {
    Control& c = frames_[f];
    u32 unpinned = 0;
    if (c.io.load(std::memory_order_acquire) != 0 ||
        !c.pins.compare_exchange_strong(unpinned, kEvictingPins, std::memory_order_acquire))
      return false;
    const u64 old = c.key.load(std::memory_order_relaxed);
    if (old != kNoKey) {
      if (c.dirty.load(std::memory_order_relaxed)) {
        backing_.write(old, data(f));
        c.dirty.store(false, std::memory_order_relaxed);
        ++p.counters.writes;
      }
      unlink(bucket_of(old), f);
      c.key.store(kNoKey, std::memory_order_release);
      c.word.fetch_add(1, std::memory_order_release);
    }
    return true;
  }

  // Per-partition replacement, under p's latch: a frame of p, claimed.
  u32 take_frame_locked(Partition& p) {
    if (!p.free.empty()) {
      const u32 f = p.free.back();
      p.free.pop_back();
      frames_[f].pins.store(kEvictingPins, std::memory_order_relaxed);
      return f;
    }
    try {
      return p.first + p.policy->evict([&](u32 slot) { return claim_locked(p, p.first + slot); });
    } catch (const std::runtime_error&) {
      return cache::kNoSlot;  // every frame pinned or in flight
    }
  }
  // Shared replacement, no partition latch held: a frame, claimed.
  u32 take_frame_shared() {
    LatchGuard g(shared_.latch);
    if (!shared_.free.empty()) {
      const u32 f = shared_.free.back();
      shared_.free.pop_back();
      frames_[f].pins.store(kEvictingPins, std::memory_order_relaxed);
      return f;
    }
    try {
      return shared_.policy->evict([&](u32 f) {
        const u64 key = frames_[f].key.load(std::memory_order_relaxed);
        if (key == kNoKey) {  // a frame whose read failed
          u32 unpinned = 0;
          return frames_[f].io.load() == 0 &&
                 frames_[f].pins.compare_exchange_strong(unpinned, kEvictingPins, std::memory_order_acquire);
        }
        Partition& q = partition_of_bucket(bucket_of(key));
        if (!q.latch.try_lock()) return false;  // busy: try the next candidate
        const bool ok = frames_[f].key.load(std::memory_order_relaxed) == key && claim_locked(q, f);
        q.latch.unlock();
        return ok;
      });
    } catch (const std::runtime_error&) {
      return cache::kNoSlot;
    }
  }
  // A miss: the page into a frame, linked, pinned once for the caller,
  // published. kRetry: someone else linked it meanwhile; kNoSlot: no frame.
  u32 table_load(u64 key, bool read, bool read_around) {
    const u32 b = bucket_of(key);
    Partition& p = partition_of_bucket(b);
    u32 f;
    if constexpr (kPerPartition) {
      lock(p);
      if (find(b, key) != cache::kNoSlot) {
        unlock(p);
        return kRetry;
      }
      f = take_frame_locked(p);
    } else {
      f = take_frame_shared();
      lock(p);
      if (f != cache::kNoSlot && find(b, key) != cache::kNoSlot) {  // loaded while we looked for a frame
        unlock(p);
        LatchGuard g(shared_.latch);
        frames_[f].pins.store(0, std::memory_order_relaxed);
        shared_.free.push_back(f);
        return kRetry;
      }
    }
    if constexpr (kCount) ++p.counters.misses;
    if (f == cache::kNoSlot) {
      if (!read_around) {
        unlock(p);
        throw std::runtime_error("page cache: no frame for page " + std::to_string(key) +
                                 " (every frame pinned, or full in a configuration that never evicts)");
      }
      ++p.counters.read_arounds;
      unlock(p);
      return cache::kNoSlot;
    }
    Control& c = frames_[f];
    c.io.store(1, std::memory_order_relaxed);
    c.key.store(key, std::memory_order_release);
    c.word.fetch_add(1, std::memory_order_release);
    link(b, f);
    if constexpr (kPerPartition) {
      p.policy->miss(key);
      p.policy->insert(f - p.first, key);
    } else {
      LatchGuard g(shared_.latch);
      shared_.policy->miss(key);
      shared_.policy->insert(f, key);
    }
    if (read) ++p.counters.reads;
    c.pins.fetch_sub(kEvictingPins - 1, std::memory_order_release);  // pinned once, by the caller
    unlock(p);
    if (!read) return f;  // the caller fills and publishes it
    try {
      backing_.read(key, data(f));
    } catch (...) {
      lock(p);
      unlink(b, f);
      c.key.store(kNoKey, std::memory_order_release);
      unlock(p);
      publish(f);  // waiters see the key gone and look again
      c.pins.fetch_sub(1, std::memory_order_release);
      throw;
    }
    publish(f);
    return f;
  }

  // ---- atomic map (E5) ----------------------------------------------------

  u32 map_fix(u64 key, LatchMode mode) {
    const bool exclusive = mode == LatchMode::kExclusive;
    for (;;) {
      const u32 f = frame_of_[key].load(std::memory_order_acquire);
      if (f == cache::kNoSlot) {
        const u32 filled = map_fill(key, /*read=*/true);
        if (filled == cache::kNoSlot) continue;  // someone else is reading it
        if (!exclusive) frame_state::exclusive_to_shared(frames_[filled].word);
        return filled;
      }
      Control& c = frames_[f];
      if (exclusive ? frame_state::try_exclusive(c.word) : frame_state::try_shared(c.word)) {
        if (c.key.load(std::memory_order_relaxed) == key) {  // not reused for another page since we looked
          if constexpr (kCount) striped_hits_.add();
          shared_.policy->hit(f);
          return f;
        }
        exclusive ? frame_state::release_exclusive(c.word) : frame_state::release_shared(c.word);
      }
      frame_state::backoff();
    }
  }

  // Makes key resident and returns its frame latched exclusively, or
  // kNoSlot if another thread made it resident meanwhile. The partition's
  // latch is the miss latch: misses run the policy one at a time; the I/O
  // runs outside it, on the frame latched by the cache.
  u32 map_fill(u64 key, bool read) {
    Partition& p = partitions_[0];
    u32 f;
    u64 old = kNoKey;
    {
      lock(p);
      if (frame_of_[key].load(std::memory_order_acquire) != cache::kNoSlot) {
        unlock(p);
        return cache::kNoSlot;
      }
      ++p.counters.misses;
      shared_.policy->miss(key);
      if (!shared_.free.empty()) {
        f = shared_.free.back();
        shared_.free.pop_back();
        frames_[f].word.store(frame_state::kEvicting, std::memory_order_relaxed);
      } else {
        const auto claim = [&](u32 s) { return frame_state::try_exclusive(frames_[s].word, frame_state::kEvicting); };
        try {
          if constexpr (requires { shared_.policy->evict(claim, claim); }) {
            f = shared_.policy->evict(claim, [&](u32 s) { return clean_for_cold(p, s); });
          } else {
            f = shared_.policy->evict(claim);
          }
        } catch (...) {
          unlock(p);
          throw;
        }
        old = frames_[f].key.load(std::memory_order_relaxed);
      }
      frames_[f].key.store(key, std::memory_order_relaxed);
      frame_of_[key].store(f, std::memory_order_release);  // fixers of key wait on the latched frame
      shared_.policy->insert(f, key);
      if (old != kNoKey && frames_[f].dirty.load(std::memory_order_relaxed)) ++p.counters.writes;
      if (read) ++p.counters.reads;
      unlock(p);
    }
    // Outside the miss latch: fixers of `old` still find this frame and wait
    // on its latch, so nobody reads `old` from the file before it is there.
    Control& c = frames_[f];
    if (old != kNoKey) {
      if (c.dirty.load(std::memory_order_relaxed)) backing_.write(old, data(f));
      frame_of_[old].store(cache::kNoSlot, std::memory_order_release);
    }
    c.dirty.store(false, std::memory_order_relaxed);
    if (read) backing_.read(key, data(f));
    frame_state::hand_over(c.word, /*exclusive=*/true);
    return f;
  }

  // A policy with a clean area (SoQoL's cold ring) hands over each page
  // entering it, under the miss latch: a dirty one is latched shared (no one
  // changes it, readers still may) and written back there and then, so that
  // it is clean and claimable when the ring frees it (a background writer
  // would take this write off the miss path; we have none). False: latched
  // exclusively, being changed, so not cold.
  bool clean_for_cold(Partition& p, u32 f) {
    Control& c = frames_[f];
    if (!c.dirty.load(std::memory_order_relaxed)) return true;
    if (!frame_state::try_shared(c.word)) return false;
    try {
      backing_.write(c.key.load(std::memory_order_relaxed), data(f));
    } catch (...) {
      frame_state::release_shared(c.word);
      throw;
    }
    c.dirty.store(false, std::memory_order_relaxed);  // no exclusive holder while we hold it shared
    frame_state::release_shared(c.word);
    ++p.counters.writes;
    ++p.counters.cold_writes;
    return true;
  }

  PageCacheOptions options_;
  ReplacementOptions replacement_options_;
  Backing backing_;
  std::vector<Control> frames_;
  std::vector<u32> heads_;                        // latched table: bucket -> first frame
  std::unique_ptr<std::atomic<u32>[]> frame_of_;  // atomic map: key -> frame
  u32 partition_count_ = 1;
  std::unique_ptr<Partition[]> partitions_;
  SharedDomain shared_;
  u32 limit_;  // frames in use (restart may shrink it)
  std::byte* arena_ = nullptr;
  std::atomic<u64> next_key_{0};
  StripedCounter striped_hits_;
  std::atomic<u64> inflight_waits_{0}, refixes_{0}, refix_failures_{0};
};

}  // namespace dbrepro
