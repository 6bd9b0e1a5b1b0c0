#pragma once
// E1's buffer manager (Shore's, as the looking-glass study measured it): the
// page cache configured with one partition per hash bucket, each bucket its
// own latch (Shore's bf_core hash table), pins counted under that latch on
// fix and unfix, a reader/writer latch per frame held while the page is
// fixed, and room for the whole database (the study's database is memory
// resident: nothing is ever evicted). Latching's types may be the no-op
// ones (the "latching" switch), which removes every latch here at compile time.
//
// Records reach these pages through Shore's space manager
// (storage/heap_file.hpp with storage/space_manager.hpp's ShoreSpace).
// E1's "page access" switch removes both: B-tree nodes then live in
// DirectPages (storage/page_store.hpp), a thin page-to-frame map with no page
// table and no pins, and records in blocks from malloc, one per record
// (storage/malloc_heap.hpp).
#include "buffer/page_cache.hpp"
#include "common/page_size.hpp"
#include "cache/no_eviction.hpp"
#include "latch/latch.hpp"
#include "log/page_lsn.hpp"

namespace dbrepro {

template <class Latching>
struct ShoreBufferPoolConfig {
  using PartitionLatch = typename Latching::Mutex;
  using ReplacementLatch = typename Latching::Mutex;
  using FrameLatch = typename Latching::PageLatch;
  using Replacement = cache::NoEviction;
  using Partitioning = HashPartitioning;
  using Backing = NoBacking;
  static constexpr Lookup kLookup = Lookup::kLatchedTable;
  static constexpr bool kReplacementPerPartition = false;
  static constexpr bool kUnpinUnderLatch = true;  // Shore unpins under the bucket latch
  static constexpr bool kVersioned = false;
  static constexpr bool kCount = false;  // E1 counts instructions: no counters on its path
};

// Lsn: the stack's page-LSN policy (log/write_ahead_log.hpp), which the
// pool's fix and unfix consult.
template <class Latching, class Lsn = NoLsn>
class BufferPool : public PageCache<ShoreBufferPoolConfig<Latching>> {
 public:
  static constexpr const char* kName = "buffer pool";
  using Cache = PageCache<ShoreBufferPoolConfig<Latching>>;
  BufferPool(u32 page_size, size_t capacity_pages) : Cache(options(page_size, capacity_pages)), lsn_(capacity_pages) {}

  // The page cache's fix and unfix, with the page-LSN checks of the stack's
  // Lsn policy (none with NoLsn).
  std::byte* fix(u64 key, LatchMode mode = LatchMode::kShared) {
    std::byte* page = Cache::fix(key, mode);
    lsn_.fixed(key, page, mode);
    return page;
  }
  void unfix(u64 key, std::byte* page, LatchMode mode = LatchMode::kShared) {
    lsn_.unfixing(key, page, mode);
    Cache::unfix(key, page, mode);
  }
  const typename Lsn::Checks& lsn_checks() const { return lsn_; }

 private:
  static PageCacheOptions options(u32 page_size, size_t capacity_pages) {
    check_page_size("page_size", page_size);
    PageCacheOptions o;
    o.page_size = page_size;
    o.frames = capacity_pages;
    o.partitions = 0;  // one latch per bucket
    return o;
  }

  [[no_unique_address]] typename Lsn::Checks lsn_;
};

}  // namespace dbrepro
