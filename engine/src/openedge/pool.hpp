#pragma once
// E3's buffer pool (OpenEdge's -B buffers), a configuration of the one page
// cache (buffer/page_cache.hpp), not a cache of its own:
//   - the Buffer pool Hash Table (BHT): buckets hashed from the page (about
//     25% of the frames, OpenEdge's -hash default), bucket b guarded by BHT
//     latch b mod L; L is a fixed count or -hashLatchFactor percent of the
//     buckets (latch_sizing.hpp). A cache partition is one BHT latch;
//   - the BHT latches are exclusive, OpenEdge's spin-then-nap latches
//     (latch/blocking_latches.hpp, -spin/-nap/-napmax): the article says
//     read/write latches were tried for the BHT and not adopted;
//   - one clock over all frames (OpenEdge replaces through one chain under
//     one latch, the LRU latch; here cache::Clock through the one policy
//     concept, under a spin-nap latch of its own);
//   - a share/exclusive lock per buffer, held while a block is read;
//   - frames carry a version, so an index cursor can remember the frame of
//     its block and re-fix it without the BHT (OpenEdge 12's optimistic
//     access: refix());
//   - the indexes are B-trees (btree/) in the pool: index(table, column) is
//     the tree over this pool;
//   - behind the pool, the database file (pread), read once in page order
//     when the pool starts, so every later access hits (the article's runs
//     hit 100% in the buffer pool).
#include <array>
#include <memory>

#include "btree/btree.hpp"
#include "buffer/cache_stats.hpp"
#include "buffer/page_cache.hpp"
#include "buffer/page_guard.hpp"
#include "cache/clock.hpp"
#include "io/block_file.hpp"
#include "latch/blocking_latches.hpp"
#include "latch/latch.hpp"
#include "openedge/database.hpp"
#include "openedge/latch_sizing.hpp"

namespace dbrepro::openedge {

// The database file behind the pool (keys are page ids); not owned.
struct DatabaseFileBacking {
  const BlockFile* file = nullptr;
  void read(u64 key, std::byte* page) const { file->read(static_cast<PageId>(key), page); }
  void write(u64 key, const std::byte* page) const { file->write(static_cast<PageId>(key), page); }
};

struct OpenEdgePoolConfig {
  using PartitionLatch = SpinNapLatch;    // a BHT latch
  using ReplacementLatch = SpinNapLatch;  // the LRU latch
  using FrameLatch = RwLatch;             // the buffer lock
  using Replacement = cache::Clock;
  using Partitioning = HashPartitioning;
  using Backing = DatabaseFileBacking;
  static constexpr Lookup kLookup = Lookup::kLatchedTable;
  static constexpr bool kReplacementPerPartition = false;
  static constexpr bool kUnpinUnderLatch = false;
  static constexpr bool kVersioned = true;
  static constexpr bool kCount = true;  // latch waits and their time, lookups, refixes
};

struct BufferPoolConfig {
  u32 frames = 0;           // 0: one per page of the database (everything fits, as in the article)
  u32 bucket_percent = 25;  // hash buckets as a share of the frames (OpenEdge's -hash default)
  LatchSizing latches = LatchSizing::fixed(1);
};

class BufferPool;
using IndexTree = BTree<IntegerKeyCompare, BufferPool>;

class BufferPool : public PageCache<OpenEdgePoolConfig> {
 public:
  BufferPool(const Database& db, const BufferPoolConfig& config)
      : PageCache<OpenEdgePoolConfig>(options(db, config), DatabaseFileBacking{db.file.get()}) {
    // Warm-up: every page that fits read once, in page order; then the
    // counters start from zero.
    for (PageId p = 0; p < db.page_count && p < frame_count(); ++p) {
      const SharedGuard<PageCache<OpenEdgePoolConfig>> warm(*this, p);
    }
    reset_stats();
    for (u32 t = 0; t < kTables; ++t)
      for (u32 c = 0; c < kColumns; ++c) {
        const BTreeShape& tree = db.tables[t].indexes[c].tree;
        indexes_[t][c] = std::make_unique<IndexTree>(*this, kIndexKey, tree.root, tree.height, tree.size);
      }
    naps_at_start_ = latch_naps();
  }

  u32 latch_count() const { return partition_count(); }
  IndexTree& index(u8 table, Column column) { return *indexes_.at(table).at(static_cast<u8>(column)); }
  // Naps taken on the BHT latches since the warm-up.
  u64 naps() { return latch_naps() - naps_at_start_; }

 private:
  static PageCacheOptions options(const Database& db, const BufferPoolConfig& config) {
    validate(config.latches);
    if (config.bucket_percent < 1 || config.bucket_percent > 1000)
      throw std::invalid_argument("bucket_percent: must be in 1..1000, got " + std::to_string(config.bucket_percent));
    PageCacheOptions o;
    o.page_size = kPageBytes;
    o.frames = config.frames ? config.frames : db.page_count;
    o.buckets = std::max<u32>(1, static_cast<u32>(o.frames * config.bucket_percent / 100));
    o.partitions = config.latches.latches_for(o.buckets);
    return o;
  }
  u64 latch_naps() {
    u64 n = 0;
    for (u32 p = 0; p < partition_count(); ++p) n += partition_latch(p).naps();
    return n;
  }
  u64 naps_at_start_ = 0;
  std::array<std::array<std::unique_ptr<IndexTree>, kColumns>, kTables> indexes_;
};

}  // namespace dbrepro::openedge
