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
//   E4 (Oracle's buffer cache)   sched/shared_table.hpp: hash chains, a
//       group of them under one cache-buffers-chains latch; pins under it.
//   E5 (a disk-backed pool)      buffer/disk_pool.hpp: a page-indexed atomic
//       map and a latch+version word per frame (vmcache, LeanStore), so a hit
//       takes no lock; misses one at a time under partition 0's latch.
//
// Each study's pages are found by one of two page tables, behind the same
// small interface (fix, unfix, insert a new page and publish it, resident,
// clear, the counters a frame's events go to): E1, E2, E3 and E4 use the
// latched hash table (buffer/latched_hash_table.hpp), E5 the atomic page map
// (buffer/atomic_page_map.hpp). The config's kLookup names it; what both
// need (frames, backing file, replacement policy, counters) is
// buffer/page_frames.hpp, and the cache here is what the two share. A fix
// is held by a guard (buffer/page_guard.hpp) that unfixes it.
#include <sys/mman.h>

#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "buffer/atomic_page_map.hpp"
#include "buffer/cache_stats.hpp"
#include "buffer/latched_hash_table.hpp"
#include "buffer/page_frames.hpp"
#include "common/page_size.hpp"
#include "common/types.hpp"
#include "latch/latch.hpp"

namespace dbrepro {

// The page table a config's kLookup names.
template <class C>
using PageTableOf =
    std::conditional_t<C::kLookup == Lookup::kAtomicMap, AtomicPageMap<C>, LatchedHashTable<C>>;

template <class C>
class PageCache {
 public:
  using Frames = PageFrames<C>;
  using Table = PageTableOf<C>;
  using PartitionLatch = typename C::PartitionLatch;
  using FrameLatch = typename C::FrameLatch;
  using Replacement = typename C::Replacement;
  using Partitioning = typename C::Partitioning;
  using Backing = typename C::Backing;
  using ReplacementLatch = typename C::ReplacementLatch;
  using ReplacementOptions = typename Frames::ReplacementOptions;
  static constexpr bool kCanEvict = Frames::kCanEvict;
  static constexpr bool kPerPartition = Frames::kPerPartition;
  static constexpr bool kCount = Frames::kCount;
  static constexpr u64 kNoKey = Frames::kNoKey;

  explicit PageCache(const PageCacheOptions& options, Backing backing = Backing{},
                     ReplacementOptions replacement_options = {})
      : table_(checked(options)), frames_(options, table_.partition_count(), std::move(backing), replacement_options) {}
  PageCache(const PageCache&) = delete;
  PageCache& operator=(const PageCache&) = delete;

  // ---- pages by key -------------------------------------------------------

  // A new zero-filled page under the next free key, resident and dirty.
  PageId allocate() {
    const u64 key = frames_.next_key.fetch_add(1);
    u32 f;
    try {
      f = table_.insert_new(frames_, key);
    } catch (...) {
      frames_.next_key.fetch_sub(1);  // no frame: the page was not made, it does not count
      throw;
    }
    std::memset(frames_.data(f), 0, frames_.options.page_size);
    frames_.frames[f].dirty.store(true, std::memory_order_relaxed);
    table_.publish_new(frames_, key, f);
    return static_cast<PageId>(key);
  }

  // The page, pinned and latched in `mode` (read from the backing on a miss).
  std::byte* fix(u64 key, LatchMode mode = LatchMode::kShared) {
    return frames_.data(table_.fix(frames_, key, mode));
  }
  void unfix(u64 key, std::byte* page, LatchMode mode = LatchMode::kShared) {
    table_.unfix(frames_, key, frames_.frame_of_page(page), mode);
  }

  // Copies the page to `out` (MyISAM's key_cache_read; the latched table's).
  void read(u64 key, std::byte* out) requires requires(Table& t, Frames& fs) { t.read(fs, key, out); } {
    table_.read(frames_, key, out);
  }

  // Optimistic access (OpenEdge 12): remember the frame a fixed page is in;
  // later, pin it again without the page table if it still holds that page
  // unchanged (nullptr: it does not; look it up instead).
  FrameRef remember(u64 key, const std::byte* page) const requires(C::kVersioned) {
    const u32 f = frames_.frame_of_page(page);
    return {f, key, frames_.frames[f].word.load(std::memory_order_acquire)};
  }
  std::byte* refix(const FrameRef& ref, LatchMode mode = LatchMode::kShared)
    requires requires(Table& t, Frames& fs) { t.refix(fs, ref, mode); } {
    const u32 f = table_.refix(frames_, ref, mode);
    return f == cache::kNoSlot ? nullptr : frames_.data(f);
  }

  // Drops a page from the cache (written back if dirty); false if pinned or
  // absent. The frame stays with the replacement policy, holding nothing,
  // and is the next one it reclaims.
  bool evict(u64 key) requires requires(Table& t, Frames& fs) { t.evict(fs, key); } {
    return table_.evict(frames_, key);
  }

  // Every dirty page to the backing (no page may be fixed meanwhile).
  void flush() {
    for (u32 f = 0; f < frames_.limit; ++f) {
      auto& c = frames_.frames[f];
      const u64 key = c.key.load(std::memory_order_relaxed);
      if (key != kNoKey && c.dirty.load(std::memory_order_relaxed)) {
        frames_.backing.write(key, frames_.data(f));
        c.dirty.store(false, std::memory_order_relaxed);
        table_.counters_of_frame(frames_, f).writes += 1;
      }
    }
  }

  // A cold restart (no page fixed meanwhile): dirty pages written, the cache
  // emptied, `frames` frames from now on, counters zeroed.
  void restart(u64 frames) {
    if (frames == 0 || frames > frames_.options.frames)
      throw std::invalid_argument("frames: must be in 1.." + std::to_string(frames_.options.frames));
    flush();
    table_.clear(frames_);
    for (u32 f = 0; f < frames_.limit; ++f) {
      auto& c = frames_.frames[f];
      c.key.store(kNoKey, std::memory_order_relaxed);
      c.next = cache::kNoSlot;
      c.pins.store(0, std::memory_order_relaxed);
    }
    ::madvise(frames_.arena, frames_.arena_bytes(), MADV_DONTNEED);  // the memory of the old contents goes back
    frames_.limit = static_cast<u32>(frames);
    frames_.reset_replacement();
    reset_stats();
  }

  // ---- what it reports --------------------------------------------------

  CacheStats stats() const {
    CacheStats sum;
    for (u32 p = 0; p < frames_.partition_count; ++p) sum += partition_stats(p);
    if constexpr (kPerPartition) {
      for (u32 p = 0; p < frames_.partition_count; ++p) add_hit_locks(sum, *frames_.partitions[p].policy);
    } else {
      add_hit_locks(sum, *frames_.shared.policy);
    }
    sum.hits += frames_.striped_hits.total();
    sum.inflight_waits += frames_.inflight_waits.load(std::memory_order_relaxed);
    sum.refixes += frames_.refixes.load(std::memory_order_relaxed);
    sum.refix_failures += frames_.refix_failures.load(std::memory_order_relaxed);
    return sum;
  }
  // Each partition's counters under its latch; read while others run, the
  // sum over partitions is a snapshot, not a consistent cut.
  CacheStats partition_stats(u32 p) const {
    LatchGuard g(frames_.partitions[p].latch);
    return frames_.partitions[p].counters;
  }
  // May run while others use the cache (E2 resets after its warm-up with the
  // workers still running): each partition's counters under its latch.
  void reset_stats() {
    for (u32 p = 0; p < frames_.partition_count; ++p) {
      LatchGuard g(frames_.partitions[p].latch);
      frames_.partitions[p].counters = {};
    }
    frames_.striped_hits.reset();
    frames_.inflight_waits.store(0);
    frames_.refixes.store(0);
    frames_.refix_failures.store(0);
  }

  u32 pin_count(u64 key) requires requires(Table& t, Frames& fs) { t.pin_count(fs, key); } {
    return table_.pin_count(frames_, key);
  }
  bool resident(u64 key) { return table_.resident(frames_, key); }
  u64 resident_pages() const {
    u64 n = 0;
    for (u32 f = 0; f < frames_.limit; ++f) n += frames_.frames[f].key.load(std::memory_order_relaxed) != kNoKey;
    return n;
  }
  u32 partition_of(u64 key) const requires requires(const Table& t) { t.partition_of(key); } {
    return table_.partition_of(key);
  }

  u32 page_size() const { return frames_.options.page_size; }
  u64 page_count() const { return frames_.next_key.load(); }  // pages allocated here
  u64 bytes() const { return page_count() * frames_.options.page_size; }
  u32 frame_count() const { return frames_.limit; }
  u32 partition_count() const { return frames_.partition_count; }
  u32 bucket_count() const { return table_.bucket_count(); }
  const PageCacheOptions& options() const { return frames_.options; }
  Backing& backing() { return frames_.backing; }
  const Backing& backing() const { return frames_.backing; }
  const Replacement& policy(u32 p = 0) const {
    if constexpr (kPerPartition) return *frames_.partitions[p].policy;
    else return *frames_.shared.policy;
  }
  PartitionLatch& partition_latch(u32 p) { return frames_.partitions[p].latch; }

 private:
  static const PageCacheOptions& checked(const PageCacheOptions& options) {
    check_page_size("page_size", options.page_size, kMinBlockSize);
    if (options.frames == 0 || options.frames >= cache::kNoSlot)
      throw std::invalid_argument("frames: must be in 1..2^32-2, got " + std::to_string(options.frames));
    return options;
  }

  // Locks on the hit path; waits only where the policy has a lock there (LRU, 2Q).
  static void add_hit_locks(CacheStats& sum, const Replacement& policy) {
    sum.hit_locks += policy.hit_locks();
    if constexpr (requires { policy.hit_lock_waits(); }) {
      sum.hit_lock_waits += policy.hit_lock_waits();
      sum.hit_lock_wait_ns += policy.hit_lock_wait_ns();
    }
  }

  Table table_;    // first: it decides how many partitions the frames have
  Frames frames_;
};

}  // namespace dbrepro
