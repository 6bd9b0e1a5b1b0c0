#pragma once
// MyISAM's key cache, segmented as in MariaDB 5.2. segments = 0 is the
// classic cache: one hash table, one replacement list, one mutex for every
// index block of every file. segments = N splits it into N independent caches
// (each its own mutex, hash table, replacement list and 1/N of the memory); a
// block goes to segment (file + position / block_size) mod N, as MariaDB.
// A hit takes the segment's mutex twice, as MyISAM's key_cache_read: once to
// find and pin the block, once to unpin it after copying it out; with one
// mutex for every block, that is what many threads queue on.
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "common/types.hpp"
#include "keycache/block_file.hpp"
#include "keycache/midpoint_lru.hpp"

namespace dbrepro::keycache {

struct KeyCacheConfig {
  u64 buffer_bytes = 8u << 20;  // key_buffer_size
  u32 block_size = 1024;        // key_cache_block_size
  u32 segments = 0;             // key_cache_segments (0 = off)
  u32 division_limit = 100;     // key_cache_division_limit (MariaDB default: plain LRU)
  u32 age_threshold = 300;      // key_cache_age_threshold
  Replacement replacement = Replacement::kMidpoint;
};

struct KeyCacheCounters {
  u64 hits = 0;
  u64 misses = 0;
  u64 mutex_waits = 0;  // acquisitions that found the mutex taken (try_lock failed)
};

// Segment of block `block` of file `file` among `segments` (0 = off = one).
inline u32 segment_of(u32 file, u64 block, u32 segments) {
  return segments == 0 ? 0 : static_cast<u32>((file + block) % segments);
}

class KeyCache {
 public:
  explicit KeyCache(const KeyCacheConfig& config);

  // Copies block `block` of `file` (known to the cache as `file_id`) to `out`.
  void read(const BlockFile& file, u32 file_id, u64 block, std::byte* out);

  KeyCacheCounters counters() const;                 // summed over segments
  std::vector<KeyCacheCounters> segment_counters() const;
  void reset_counters();
  u32 segment_count() const { return static_cast<u32>(segments_.size()); }
  u32 blocks_per_segment() const { return blocks_per_segment_; }
  const KeyCacheConfig& config() const { return config_; }

 private:
  struct alignas(64) Segment {
    Segment(u32 blocks, u32 block_size, const KeyCacheConfig& c)
        : memory(u64{blocks} * block_size), owner(blocks), pins(blocks), lru(blocks, c.division_limit, c.age_threshold, c.replacement) {}
    mutable std::mutex mutex;
    std::unordered_map<u64, u32> slot_of;  // (file, block) -> slot
    std::vector<std::byte> memory;         // slot n at n * block_size
    std::vector<u64> owner;                // slot -> (file, block)
    std::vector<u32> pins;                 // readers copying the slot out; never evicted while > 0
    MidpointLru lru;
    u32 used = 0;
    KeyCacheCounters counters;
  };

  KeyCacheConfig config_;
  u32 blocks_per_segment_;
  std::vector<std::unique_ptr<Segment>> segments_;
};

}  // namespace dbrepro::keycache
