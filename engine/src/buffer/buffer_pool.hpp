#pragma once
// E1's buffer manager (Shore's, as the looking-glass study measured it): the
// page cache configured with one partition per hash bucket, each bucket its
// own latch (Shore's bf_core hash table), pins counted under that latch on
// fix and unfix, a reader/writer latch per frame held while the page is
// fixed, and room for the whole database (the study's database is memory
// resident: nothing is ever evicted). Latching's types may be the no-op
// ones (the "latching" switch), which removes every latch here at compile time.
//
// DirectPages (storage/page_store.hpp) is the removed form (E1's "page
// access" switch): a thin page-to-frame map, no page table, no pins.
#include "buffer/page_cache.hpp"
#include "cache/no_eviction.hpp"
#include "latch/latch.hpp"

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

template <class Latching>
class BufferPool : public PageCache<ShoreBufferPoolConfig<Latching>> {
 public:
  static constexpr const char* kName = "buffer pool";
  BufferPool(u32 page_size, size_t capacity_pages)
      : PageCache<ShoreBufferPoolConfig<Latching>>(options(page_size, capacity_pages)) {}

 private:
  static PageCacheOptions options(u32 page_size, size_t capacity_pages) {
    if (page_size < 1024 || (page_size & (page_size - 1)) != 0)
      throw std::invalid_argument("page_size must be a power of two >= 1024");
    PageCacheOptions o;
    o.page_size = page_size;
    o.frames = capacity_pages;
    o.partitions = 0;  // one latch per bucket
    return o;
  }
};

}  // namespace dbrepro
