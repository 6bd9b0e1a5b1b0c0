#pragma once
// The page cache's latched hash table (E1's Shore bf_core, E2's MyISAM key
// cache segments, E3's OpenEdge buffer pool): buckets of chains of frame
// control blocks, bucket b under partition latch b mod P, pins counted in the
// control block, frames being read in marked in transit.
//
// How a page is found: hash the key to a bucket; take its partition's latch,
// walk the bucket's chain, pin the frame, tell the partition's (or the shared)
// replacement policy of the hit, let the latch go, then take the frame's own
// latch in the caller's mode.
// How a miss is served: a frame is taken (free, or a victim the policy
// chooses among unpinned frames, unlinked under its partition's latch); the
// frame is linked under the page's key marked "being read" and pinned; the
// partition latch is released for the read (no latch is held across I/O);
// others who ask for that page find it, pin it and wait until the reader
// publishes it (MyISAM's wait_on_queue, OpenEdge's and Shore's in-transit
// frames). A dirty victim is written back under its partition's latch before
// it is unlinked (so nobody reads a stale copy); E2 and E3 never dirty a page.
#include <algorithm>
#include <atomic>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "buffer/page_frames.hpp"

namespace dbrepro {

template <class C>
class LatchedHashTable {
 public:
  using Frames = PageFrames<C>;
  using Partitioning = typename C::Partitioning;
  using Partition = typename Frames::Partition;
  using Control = typename Frames::Control;
  static constexpr bool kCanEvict = Frames::kCanEvict;
  static constexpr bool kPerPartition = Frames::kPerPartition;
  static constexpr bool kCount = Frames::kCount;
  static constexpr bool kUnpinUnderLatch = C::kUnpinUnderLatch;
  static constexpr u64 kNoKey = Frames::kNoKey;
  static constexpr u32 kEvictingPins = Frames::kEvictingPins;

  explicit LatchedHashTable(const PageCacheOptions& options) {
    u32 buckets = options.buckets;
    if (buckets == 0) {
      buckets = 1024;
      while (buckets < options.frames) buckets <<= 1;
    }
    const u32 partitions = options.partitions ? options.partitions : buckets;
    if (partitions > buckets) throw std::invalid_argument("partitions: more than the buckets");
    buckets = (buckets + partitions - 1) / partitions * partitions;  // every partition the same number of buckets
    heads_.assign(buckets, cache::kNoSlot);
    partitions_ = partitions;
  }

  u32 partition_count() const { return partitions_; }
  u32 bucket_count() const { return static_cast<u32>(heads_.size()); }
  u32 partition_of(u64 key) const { return bucket_of(key) % partitions_; }

  // The frame holding `key`, pinned, latched in `mode` (read in on a miss).
  u32 fix(Frames& fs, u64 key, LatchMode mode) {
    const u32 f = pin(fs, key, /*read_around=*/false);
    fs.frames[f].latch.acquire(mode);
    return f;
  }
  void unfix(Frames& fs, u64 key, u32 f, LatchMode mode) {
    if (mode == LatchMode::kExclusive) {
      fs.frames[f].dirty.store(true, std::memory_order_relaxed);
      if constexpr (C::kVersioned) fs.frames[f].word.fetch_add(1, std::memory_order_release);
    }
    fs.frames[f].latch.release(mode);
    unpin(fs, key, f);
  }

  // A frame for a new page under `key`, pinned and in transit (nobody else
  // reads it until publish_new).
  u32 insert_new(Frames& fs, u64 key) { return load(fs, key, /*read=*/false, /*read_around=*/false); }
  void publish_new(Frames& fs, u64 key, u32 f) {
    publish(fs, f);
    unpin(fs, key, f);
  }

  // Copies the page to `out` (MyISAM's key_cache_read: pin the block under
  // the segment latch, copy it out without the latch, unpin). A miss with
  // every frame in use reads around the cache, as MyISAM does.
  void read(Frames& fs, u64 key, std::byte* out) {
    const u32 f = pin(fs, key, /*read_around=*/true);
    if (f == cache::kNoSlot) {
      fs.backing.read(key, out);
      return;
    }
    fs.frames[f].latch.acquire(LatchMode::kShared);
    std::memcpy(out, fs.data(f), fs.options.page_size);
    fs.frames[f].latch.release(LatchMode::kShared);
    unpin(fs, key, f);
  }

  // Optimistic access (OpenEdge 12): pin a remembered frame again without the
  // table if it still holds that page unchanged; kNoSlot: it does not.
  u32 refix(Frames& fs, const FrameRef& ref, LatchMode mode) requires(C::kVersioned) {
    Control& c = fs.frames[ref.frame];
    const u32 before = c.pins.fetch_add(1, std::memory_order_acquire);
    if (before >= kEvictingPins || c.key.load(std::memory_order_acquire) != ref.key ||
        c.word.load(std::memory_order_acquire) != ref.version || c.io.load(std::memory_order_acquire) != 0) {
      c.pins.fetch_sub(1, std::memory_order_release);
      fs.refix_failures.fetch_add(1, std::memory_order_relaxed);
      return cache::kNoSlot;
    }
    fs.refixes.fetch_add(1, std::memory_order_relaxed);
    c.latch.acquire(mode);
    if (c.word.load(std::memory_order_acquire) != ref.version) {  // changed while we took the latch
      c.latch.release(mode);
      c.pins.fetch_sub(1, std::memory_order_release);
      return cache::kNoSlot;
    }
    return ref.frame;
  }

  // Drops a page (written back if dirty); false if pinned or absent. The
  // frame stays with the replacement policy, holding nothing, and is the
  // next one it reclaims.
  bool evict(Frames& fs, u64 key) requires(kCanEvict) {
    const u32 b = bucket_of(key);
    Partition& p = partition_of_bucket(fs, b);
    fs.lock(p);
    const u32 f = find(fs, b, key);
    const bool done = f != cache::kNoSlot && claim_locked(fs, p, f);
    if (done) fs.frames[f].pins.store(0, std::memory_order_release);
    fs.unlock(p);
    return done;
  }

  u32 pin_count(Frames& fs, u64 key) {
    const u32 b = bucket_of(key);
    Partition& p = partition_of_bucket(fs, b);
    LatchGuard g(p.latch);
    const u32 f = find(fs, b, key);
    return f == cache::kNoSlot ? 0 : fs.frames[f].pins.load(std::memory_order_relaxed);
  }
  bool resident(Frames& fs, u64 key) {
    const u32 b = bucket_of(key);
    Partition& p = partition_of_bucket(fs, b);
    LatchGuard g(p.latch);
    return find(fs, b, key) != cache::kNoSlot;
  }

  // A cold restart (nothing fixed): every chain emptied; the cache resets the frames.
  void clear(Frames&) { std::fill(heads_.begin(), heads_.end(), cache::kNoSlot); }

  // The counters a frame's events go to: its page's partition's.
  CacheStats& counters_of_frame(Frames& fs, u32 f) {
    const u64 key = fs.frames[f].key.load(std::memory_order_relaxed);
    return key == kNoKey ? fs.partitions[0].counters : partition_of_bucket(fs, bucket_of(key)).counters;
  }

 private:
  static constexpr u32 kRetry = cache::kNoSlot - 1;

  u32 bucket_of(u64 key) const { return Partitioning::bucket(key, static_cast<u32>(heads_.size()), partitions_); }
  Partition& partition_of_bucket(Frames& fs, u32 b) const { return fs.partitions[b % partitions_]; }

  u32 find(const Frames& fs, u32 b, u64 key) const {
    u32 f = heads_[b];
    while (f != cache::kNoSlot && fs.frames[f].key.load(std::memory_order_relaxed) != key) f = fs.frames[f].next;
    return f;
  }
  void link(Frames& fs, u32 b, u32 f) {
    fs.frames[f].next = heads_[b];
    heads_[b] = f;
  }
  void unlink(Frames& fs, u32 b, u32 f) {
    u32* at = &heads_[b];
    while (*at != f) at = &fs.frames[*at].next;
    *at = fs.frames[f].next;
    fs.frames[f].next = cache::kNoSlot;
  }

  // The frame holding `key`, pinned and published (read in if need be);
  // kNoSlot only with read_around, when every frame is in use.
  u32 pin(Frames& fs, u64 key, bool read_around) {
    for (;;) {
      const u32 b = bucket_of(key);
      Partition& p = partition_of_bucket(fs, b);
      fs.lock(p);
      const u32 f = find(fs, b, key);
      if (f != cache::kNoSlot) {
        fs.frames[f].pins.fetch_add(1, std::memory_order_acquire);
        if constexpr (kCount) ++p.counters.hits;
        if constexpr (kPerPartition) p.policy->hit(f - p.first);
        else if constexpr (kCanEvict) fs.shared.policy->hit(f);
        fs.unlock(p);
        if constexpr (kCanEvict) {
          if (!wait_published(fs, f, key)) continue;  // its read failed: look again
        }
        return f;
      }
      fs.unlock(p);
      if constexpr (!kCanEvict) {
        NoBacking{}.read(key, nullptr);  // throws: this configuration never misses
      } else {
        const u32 loaded = load(fs, key, /*read=*/true, read_around);
        if (loaded == cache::kNoSlot) return cache::kNoSlot;
        if (loaded == kRetry) continue;
        return loaded;
      }
    }
  }

  // Waits while frame f is being read in; false if that read failed.
  bool wait_published(Frames& fs, u32 f, u64 key) {
    Control& c = fs.frames[f];
    u32 io = c.io.load(std::memory_order_acquire);
    if (io == 0) return true;
    fs.inflight_waits.fetch_add(1, std::memory_order_relaxed);
    while (io != 0) {
      c.io.wait(io, std::memory_order_acquire);
      io = c.io.load(std::memory_order_acquire);
    }
    if (c.key.load(std::memory_order_acquire) == key) return true;
    c.pins.fetch_sub(1, std::memory_order_release);
    return false;
  }
  static void publish(Frames& fs, u32 f) {
    fs.frames[f].io.store(0, std::memory_order_release);
    fs.frames[f].io.notify_all();
  }

  void unpin(Frames& fs, u64 key, u32 f) {
    if constexpr (kUnpinUnderLatch) {
      Partition& p = partition_of_bucket(fs, bucket_of(key));
      fs.lock(p);
      fs.frames[f].pins.fetch_sub(1, std::memory_order_release);
      fs.unlock(p);
    } else {
      fs.frames[f].pins.fetch_sub(1, std::memory_order_release);
    }
  }

  // Under p's latch, with f in it: takes f if unpinned and not in flight,
  // writes it back if dirty, unlinks it. The frame is left with kEvictingPins.
  bool claim_locked(Frames& fs, Partition& p, u32 f) {
    Control& c = fs.frames[f];
    u32 unpinned = 0;
    if (c.io.load(std::memory_order_acquire) != 0 ||
        !c.pins.compare_exchange_strong(unpinned, kEvictingPins, std::memory_order_acquire))
      return false;
    const u64 old = c.key.load(std::memory_order_relaxed);
    if (old != kNoKey) {
      if (c.dirty.load(std::memory_order_relaxed)) {
        fs.backing.write(old, fs.data(f));
        c.dirty.store(false, std::memory_order_relaxed);
        ++p.counters.writes;
      }
      unlink(fs, bucket_of(old), f);
      c.key.store(kNoKey, std::memory_order_release);
      c.word.fetch_add(1, std::memory_order_release);
    }
    return true;
  }

  // Per-partition replacement, under p's latch: a frame of p, claimed.
  u32 take_frame_locked(Frames& fs, Partition& p) {
    if (!p.free.empty()) {
      const u32 f = p.free.back();
      p.free.pop_back();
      fs.frames[f].pins.store(kEvictingPins, std::memory_order_relaxed);
      return f;
    }
    try {
      return p.first + p.policy->evict([&](u32 slot) { return claim_locked(fs, p, p.first + slot); });
    } catch (const std::runtime_error&) {
      return cache::kNoSlot;  // every frame pinned or in flight
    }
  }
  // Shared replacement, no partition latch held: a frame, claimed.
  u32 take_frame_shared(Frames& fs) {
    LatchGuard g(fs.shared.latch);
    if (!fs.shared.free.empty()) {
      const u32 f = fs.shared.free.back();
      fs.shared.free.pop_back();
      fs.frames[f].pins.store(kEvictingPins, std::memory_order_relaxed);
      return f;
    }
    try {
      return fs.shared.policy->evict([&](u32 f) {
        const u64 key = fs.frames[f].key.load(std::memory_order_relaxed);
        if (key == kNoKey) {  // a frame whose read failed
          u32 unpinned = 0;
          return fs.frames[f].io.load() == 0 &&
                 fs.frames[f].pins.compare_exchange_strong(unpinned, kEvictingPins, std::memory_order_acquire);
        }
        Partition& q = partition_of_bucket(fs, bucket_of(key));
        if (!q.latch.try_lock()) return false;  // busy: try the next candidate
        const bool ok = fs.frames[f].key.load(std::memory_order_relaxed) == key && claim_locked(fs, q, f);
        q.latch.unlock();
        return ok;
      });
    } catch (const std::runtime_error&) {
      return cache::kNoSlot;
    }
  }
  // A miss: the page into a frame, linked, pinned once for the caller,
  // published. kRetry: someone else linked it meanwhile; kNoSlot: no frame.
  u32 load(Frames& fs, u64 key, bool read, bool read_around) {
    const u32 b = bucket_of(key);
    Partition& p = partition_of_bucket(fs, b);
    u32 f;
    if constexpr (kPerPartition) {
      fs.lock(p);
      if (find(fs, b, key) != cache::kNoSlot) {
        fs.unlock(p);
        return kRetry;
      }
      f = take_frame_locked(fs, p);
    } else {
      f = take_frame_shared(fs);
      fs.lock(p);
      if (f != cache::kNoSlot && find(fs, b, key) != cache::kNoSlot) {  // loaded while we looked for a frame
        fs.unlock(p);
        LatchGuard g(fs.shared.latch);
        fs.frames[f].pins.store(0, std::memory_order_relaxed);
        fs.shared.free.push_back(f);
        return kRetry;
      }
    }
    if constexpr (kCount) ++p.counters.misses;
    if (f == cache::kNoSlot) {
      if (!read_around) {
        fs.unlock(p);
        throw std::runtime_error("page cache: no frame for page " + std::to_string(key) +
                                 " (every frame pinned, or full in a configuration that never evicts)");
      }
      ++p.counters.read_arounds;
      fs.unlock(p);
      return cache::kNoSlot;
    }
    Control& c = fs.frames[f];
    c.io.store(1, std::memory_order_relaxed);
    c.key.store(key, std::memory_order_release);
    c.word.fetch_add(1, std::memory_order_release);
    link(fs, b, f);
    if constexpr (kPerPartition) {
      p.policy->miss(key);
      p.policy->insert(f - p.first, key);
    } else {
      LatchGuard g(fs.shared.latch);
      fs.shared.policy->miss(key);
      fs.shared.policy->insert(f, key);
    }
    if (read) ++p.counters.reads;
    c.pins.fetch_sub(kEvictingPins - 1, std::memory_order_release);  // pinned once, by the caller
    fs.unlock(p);
    if (!read) return f;  // the caller fills and publishes it
    try {
      fs.backing.read(key, fs.data(f));
    } catch (...) {
      fs.lock(p);
      unlink(fs, b, f);
      c.key.store(kNoKey, std::memory_order_release);
      fs.unlock(p);
      publish(fs, f);  // waiters see the key gone and look again
      c.pins.fetch_sub(1, std::memory_order_release);
      throw;
    }
    publish(fs, f);
    return f;
  }

  std::vector<u32> heads_;  // bucket -> first frame of its chain (under the bucket's partition latch)
  u32 partitions_ = 1;
};

}  // namespace dbrepro
