#pragma once
// The page cache's atomic page map (E5's disk-backed pool, after vmcache and
// LeanStore): one atomic frame number per page id and a latch+version word
// per frame (buffer/frame_state.hpp), so a hit takes no lock: read the
// page's frame, latch its word with one compare-and-swap, check the frame
// still holds the page. Misses run one at a time under partition 0's latch
// (the miss latch), which runs the replacement policy; the I/O runs outside
// it on the frame, which the miss holds exclusively. Victims are written
// back outside any latch; SoQoL's cold ring, which holds clean pages only,
// has each dirty page written back as it enters the ring, under the miss
// latch (clean_for_cold).
#include <atomic>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>

#include "buffer/frame_state.hpp"
#include "buffer/page_frames.hpp"

namespace dbrepro {

template <class C>
class AtomicPageMap {
 public:
  using Frames = PageFrames<C>;
  using Partition = typename Frames::Partition;
  using Control = typename Frames::Control;
  static constexpr bool kCount = Frames::kCount;
  static constexpr u64 kNoKey = Frames::kNoKey;

  explicit AtomicPageMap(const PageCacheOptions& options) : key_limit_(options.key_limit) {
    if (options.partitions != 1) throw std::invalid_argument("partitions: the atomic map has one miss latch");
    if (options.key_limit == 0) throw std::invalid_argument("key_limit: the atomic map needs the key range");
    frame_of_ = std::make_unique<std::atomic<u32>[]>(options.key_limit);
    for (u64 k = 0; k < options.key_limit; ++k) frame_of_[k].store(cache::kNoSlot, std::memory_order_relaxed);
  }

  u32 partition_count() const { return 1; }
  u32 bucket_count() const { return 0; }

  // The frame holding `key`, latched in `mode` (read in on a miss).
  u32 fix(Frames& fs, u64 key, LatchMode mode) {
    const bool exclusive = mode == LatchMode::kExclusive;
    for (;;) {
      const u32 f = frame_of_[key].load(std::memory_order_acquire);
      if (f == cache::kNoSlot) {
        const u32 filled = fill(fs, key, /*read=*/true);
        if (filled == cache::kNoSlot) continue;  // someone else is reading it
        if (!exclusive) frame_state::exclusive_to_shared(fs.frames[filled].word);
        return filled;
      }
      Control& c = fs.frames[f];
      if (exclusive ? frame_state::try_exclusive(c.word) : frame_state::try_shared(c.word)) {
        if (c.key.load(std::memory_order_relaxed) == key) {  // not reused for another page since we looked
          if constexpr (kCount) fs.striped_hits.add();
          fs.shared.policy->hit(f);
          return f;
        }
        exclusive ? frame_state::release_exclusive(c.word) : frame_state::release_shared(c.word);
      }
      frame_state::backoff();
    }
  }
  void unfix(Frames& fs, u64 /*key*/, u32 f, LatchMode mode) {
    if (mode == LatchMode::kExclusive) {
      fs.frames[f].dirty.store(true, std::memory_order_relaxed);
      frame_state::release_exclusive(fs.frames[f].word);
    } else {
      frame_state::release_shared(fs.frames[f].word);
    }
  }

  // A frame for a new page under `key`, latched exclusively until publish_new.
  u32 insert_new(Frames& fs, u64 key) {
    if (key >= key_limit_) throw std::runtime_error("page cache: more than " + std::to_string(key_limit_) + " pages");
    return fill(fs, key, /*read=*/false);
  }
  void publish_new(Frames& fs, u64 /*key*/, u32 f) { frame_state::release_exclusive(fs.frames[f].word); }

  bool resident(Frames&, u64 key) { return frame_of_[key].load(std::memory_order_acquire) != cache::kNoSlot; }

  // A cold restart (nothing fixed): every page unmapped and every frame's
  // word back to unlatched; the cache resets the rest of the frames.
  void clear(Frames& fs) {
    for (u32 f = 0; f < fs.limit; ++f) {
      Control& c = fs.frames[f];
      const u64 key = c.key.load(std::memory_order_relaxed);
      if (key != kNoKey) frame_of_[key].store(cache::kNoSlot, std::memory_order_relaxed);
      c.word.store(0, std::memory_order_relaxed);
    }
  }

  // Every frame's events count in partition 0, the miss latch's.
  CacheStats& counters_of_frame(Frames& fs, u32) { return fs.partitions[0].counters; }

 private:
  // Makes key resident and returns its frame latched exclusively, or
  // kNoSlot if another thread made it resident meanwhile. The partition's
  // latch is the miss latch: misses run the policy one at a time; the I/O
  // runs outside it, on the frame latched by the cache.
  u32 fill(Frames& fs, u64 key, bool read) {
    Partition& p = fs.partitions[0];
    u32 f;
    u64 old = kNoKey;
    {
      fs.lock(p);
      if (frame_of_[key].load(std::memory_order_acquire) != cache::kNoSlot) {
        fs.unlock(p);
        return cache::kNoSlot;
      }
      ++p.counters.misses;
      fs.shared.policy->miss(key);
      if (!fs.shared.free.empty()) {
        f = fs.shared.free.back();
        fs.shared.free.pop_back();
        fs.frames[f].word.store(frame_state::kEvicting, std::memory_order_relaxed);
      } else {
        const auto claim = [&](u32 s) { return frame_state::try_exclusive(fs.frames[s].word, frame_state::kEvicting); };
        try {
          if constexpr (requires { fs.shared.policy->evict(claim, claim); }) {
            f = fs.shared.policy->evict(claim, [&](u32 s) { return clean_for_cold(fs, p, s); });
          } else {
            f = fs.shared.policy->evict(claim);
          }
        } catch (...) {
          fs.unlock(p);
          throw;
        }
        old = fs.frames[f].key.load(std::memory_order_relaxed);
      }
      fs.frames[f].key.store(key, std::memory_order_relaxed);
      frame_of_[key].store(f, std::memory_order_release);  // fixers of key wait on the latched frame
      fs.shared.policy->insert(f, key);
      if (old != kNoKey && fs.frames[f].dirty.load(std::memory_order_relaxed)) ++p.counters.writes;
      if (read) ++p.counters.reads;
      fs.unlock(p);
    }
    // Outside the miss latch: fixers of `old` still find this frame and wait
    // on its latch, so nobody reads `old` from the file before it is there.
    Control& c = fs.frames[f];
    if (old != kNoKey) {
      if (c.dirty.load(std::memory_order_relaxed)) fs.backing.write(old, fs.data(f));
      frame_of_[old].store(cache::kNoSlot, std::memory_order_release);
    }
    c.dirty.store(false, std::memory_order_relaxed);
    if (read) fs.backing.read(key, fs.data(f));
    frame_state::hand_over(c.word, /*exclusive=*/true);
    return f;
  }

  // A policy with a clean area (SoQoL's cold ring) hands over each page
  // entering it, under the miss latch: a dirty one is latched shared (no one
  // changes it, readers still may) and written back there and then, so that
  // it is clean and claimable when the ring frees it (a background writer
  // would take this write off the miss path; we have none). False: latched
  // exclusively, being changed, so not cold.
  bool clean_for_cold(Frames& fs, Partition& p, u32 f) {
    Control& c = fs.frames[f];
    if (!c.dirty.load(std::memory_order_relaxed)) return true;
    if (!frame_state::try_shared(c.word)) return false;
    try {
      fs.backing.write(c.key.load(std::memory_order_relaxed), fs.data(f));
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

  u64 key_limit_;
  std::unique_ptr<std::atomic<u32>[]> frame_of_;  // key -> frame (kNoSlot: not resident)
};

}  // namespace dbrepro
