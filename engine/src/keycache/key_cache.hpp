#pragma once
// MyISAM's key cache, segmented as in MariaDB 5.2 (mysys/mf_keycache.c), as a
// configuration of the one page cache (buffer/page_cache.hpp):
//   - segments are the cache's partitions: segments = 0 (off) is one
//     partition, MyISAM's classic cache with one cache_lock for every block
//     of every file; N splits it into N, each with its own mutex, hash
//     buckets, 1/N of the blocks and its own replacement list. A block goes
//     to segment (file + block) mod N (SegmentPartitioning, as MariaDB);
//   - the segment mutex is MariaDB's: cache_lock is created with
//     MY_MUTEX_INIT_FAST, an adaptive (spin-then-sleep) mutex; a plain futex
//     mutex and a spin latch are the other choices (the Latch parameter);
//   - replacement is MyISAM's midpoint-insertion LRU (cache/midpoint_lru.hpp),
//     per segment, under the segment mutex;
//   - key_cache_read: a hit pins the block under the mutex, copies it out
//     with the mutex released, and takes the mutex again to unpin; a miss
//     takes a block, marks it being read, releases the mutex for the pread,
//     and other readers of that block wait until it is in (inflight_waits);
//     with every block in use it reads around the cache.
// Counters (hits, misses, mutex waits and time waiting, ...) are the page
// cache's CacheStats; the time each segment mutex is held, and the holds in
// which the holder lost its CPU, are its TimedLatch's (keycache/timed_latch.hpp).
#include <array>
#include <stdexcept>
#include <string>
#include <vector>

#include "buffer/cache_stats.hpp"
#include "buffer/page_cache.hpp"
#include "cache/midpoint_lru.hpp"
#include "common/types.hpp"
#include "io/block_file.hpp"
#include "keycache/timed_latch.hpp"
#include "latch/blocking_latches.hpp"
#include "latch/latch.hpp"

namespace dbrepro::keycache {

enum class Replacement : u8 { kMidpoint, kLru };

struct KeyCacheConfig {
  u64 buffer_bytes = 8u << 20;  // key_buffer_size
  u32 block_size = 1024;        // key_cache_block_size
  u32 segments = 0;             // key_cache_segments (0 = off)
  u32 division_limit = 100;     // key_cache_division_limit (MariaDB default: plain LRU)
  u32 age_threshold = 300;      // key_cache_age_threshold
  Replacement replacement = Replacement::kMidpoint;
};

// Throws std::invalid_argument naming the first bad field.
void validate(const KeyCacheConfig& config);
// Blocks per segment: key_buffer_size split evenly (as MariaDB).
u32 blocks_per_segment(const KeyCacheConfig& config);

// The cache's key of block `block` of file `file`.
inline u64 block_key(u32 file, u64 block) { return (u64{file} << 48) | block; }

// The files behind the cache, by file id: a miss preads the block.
class FileBacking {
 public:
  explicit FileBacking(u32 block_size = 0) : block_size_(block_size) {}
  void attach(u32 file_id, const BlockFile& file) {
    if (file.block_size() != block_size_)
      throw std::invalid_argument("key cache: file of " + std::to_string(file.block_size()) +
                                  "-byte blocks in a cache of " + std::to_string(block_size_));
    if (file_id >= files_.size()) files_.resize(file_id + 1, nullptr);
    files_[file_id] = &file;
  }
  void read(u64 key, std::byte* out) const {
    const u64 file_id = key >> 48;
    if (file_id >= files_.size() || files_[file_id] == nullptr)
      throw std::logic_error("key cache: file " + std::to_string(file_id) + " not attached");
    files_[file_id]->read(key & ((u64{1} << 48) - 1), out);
  }
  void write(u64, const std::byte*) const { throw std::logic_error("key cache: read only, no block is ever dirty"); }

 private:
  u32 block_size_;
  std::vector<const BlockFile*> files_;
};

// A test-and-test-and-set spin latch with yield, named for the records.
struct SpinMutex : SpinLatch {
  static constexpr const char* kName = "spin";
};

// The page cache's configuration; Backing is the file (a test may gate its reads).
template <class Latch, class Backing_ = FileBacking>
struct KeyCacheConfigOf {
  using PartitionLatch = TimedLatch<Latch>;
  using ReplacementLatch = NullMutex;  // replacement is per segment, under its mutex
  using FrameLatch = NullRwLatch;      // MyISAM reads a pinned block without a block latch
  using Replacement = cache::MidpointLru;
  using Partitioning = SegmentPartitioning;
  using Backing = Backing_;
  static constexpr Lookup kLookup = Lookup::kLatchedTable;
  static constexpr bool kReplacementPerPartition = true;
  static constexpr bool kUnpinUnderLatch = true;  // MyISAM unregisters the request under cache_lock
  static constexpr bool kVersioned = false;
  static constexpr bool kCount = true;
};

template <class Latch, class Backing = FileBacking>
class KeyCache {
 public:
  using Pages = PageCache<KeyCacheConfigOf<Latch, Backing>>;
  static constexpr const char* kLatchName = Latch::kName;

  explicit KeyCache(const KeyCacheConfig& config)
      : config_((validate(config), config)), pages_(page_options(config), Backing(config.block_size), policy_options(config)) {}

  // The file whose blocks are read as `file_id` (before any read).
  void attach(u32 file_id, const BlockFile& file) { pages_.backing().attach(file_id, file); }
  // Copies block `block` of file `file_id` to `out` (key_cache_read).
  void read(u32 file_id, u64 block, std::byte* out) { pages_.read(block_key(file_id, block), out); }

  // LOAD INDEX INTO CACHE (MyISAM's mi_preload): blocks [first, end) of the
  // file read once through the cache, in order.
  void preload(u32 file_id, u64 first, u64 end) {
    std::vector<std::byte> scratch(config_.block_size);
    for (u64 block = first; block < end; ++block) read(file_id, block, scratch.data());
  }

  CacheStats counters() const { return pages_.stats(); }  // summed over segments
  std::vector<CacheStats> segment_counters() const {
    std::vector<CacheStats> all;
    for (u32 p = 0; p < pages_.partition_count(); ++p) all.push_back(pages_.partition_stats(p));
    return all;
  }
  void reset_counters() {
    pages_.reset_stats();
    for (u32 p = 0; p < pages_.partition_count(); ++p) pages_.partition_latch(p).reset();
  }
  // How long the segment mutexes were held, summed over segments.
  HoldStats hold_stats() {
    HoldStats sum;
    for (u32 p = 0; p < pages_.partition_count(); ++p) sum += pages_.partition_latch(p).stats();
    return sum;
  }
  u32 segment_of(u32 file_id, u64 block) const { return pages_.partition_of(block_key(file_id, block)); }
  u32 segment_count() const { return pages_.partition_count(); }
  u32 blocks_per_segment() const { return pages_.frame_count() / pages_.partition_count(); }
  u32 block_size() const { return config_.block_size; }
  const KeyCacheConfig& config() const { return config_; }
  Pages& pages() { return pages_; }
  const Pages& pages() const { return pages_; }

 private:
  static PageCacheOptions page_options(const KeyCacheConfig& c) {
    PageCacheOptions o;
    o.page_size = c.block_size;
    o.partitions = c.segments == 0 ? 1 : c.segments;
    o.frames = u64{keycache::blocks_per_segment(c)} * o.partitions;
    return o;
  }
  static cache::MidpointLru::Options policy_options(const KeyCacheConfig& c) {
    return {c.division_limit, c.age_threshold, c.replacement == Replacement::kMidpoint};
  }

  KeyCacheConfig config_;
  Pages pages_;
};

// The segment mutexes a run can choose (MariaDB's first), and the one place
// a name becomes a type: calls fn(std::type_identity<Latch>{}).
inline constexpr std::array<const char*, 3> kLatchNames = {AdaptiveMutex::kName, PlainMutex::kName, SpinMutex::kName};

template <class Fn>
decltype(auto) with_latch(const std::string& name, Fn&& fn) {
  if (name == AdaptiveMutex::kName) return fn(std::type_identity<AdaptiveMutex>{});
  if (name == PlainMutex::kName) return fn(std::type_identity<PlainMutex>{});
  if (name == SpinMutex::kName) return fn(std::type_identity<SpinMutex>{});
  throw std::invalid_argument("latch: invalid value '" + name + "' (allowed: adaptive, futex, spin)");
}

}  // namespace dbrepro::keycache
