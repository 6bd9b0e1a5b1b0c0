#pragma once
// What one session's cursors did, counted where they happen (no shared
// atomics on the hot path) and summed when the session ends. How the pages
// were found (BHT lookups, optimistic re-fixes and their failures, misses,
// latch waits) is the buffer pool's CacheStats (buffer/cache_stats.hpp).
#include "common/types.hpp"

namespace dbrepro::openedge {

struct AccessCounters {
  u64 record_reads = 0;  // records copied out of data pages
  u64 index_blocks = 0;  // index blocks a cursor moved onto (each time it entered one)

  AccessCounters& operator+=(const AccessCounters& o) {
    record_reads += o.record_reads;
    index_blocks += o.index_blocks;
    return *this;
  }
};

}  // namespace dbrepro::openedge
