#pragma once
// What the disk-backed pool (E5) reports of a run, from the page cache's
// counters (buffer/cache_stats.hpp).
#include <string>

#include "common/types.hpp"

namespace dbrepro {

// What a run reports about its pool (measured phase only).
struct DiskPoolStats {
  std::string policy;
  // Misses found in the policy's ghost (2Q: pages admitted to Am; S3-FIFO; 0
  // without a ghost). In the slot the stored fraction had (now fraction()):
  // this struct is in every stack's RunResult, and a change of its size or
  // layout shifts GCC's inlining in E1's stacks, hence their instruction counts.
  u64 ghost_hits = 0;
  u64 frames = 0;         // frames the pool may use
  u64 database_pages = 0; // at the start of the run
  u64 hits = 0;
  u64 misses = 0;         // page reads plus new pages
  u64 reads = 0;          // pages read from the file
  u64 writes = 0;         // dirty pages written back
  u64 cold_writes = 0;    // of writes: cleaned on entering SoQoL's cold ring (not as a victim)
  u64 hit_locks = 0;      // locks the policy took on the hit path
  u64 hit_lock_waits = 0; // ... that found the lock held (LRU, 2Q; 0 for the FIFO family)
  u64 hit_lock_wait_ns = 0;
  bool o_direct = false;  // whether the file was opened with O_DIRECT
  u64 warmup_references = 0;  // of a recorded trace: the first ones, the warm-up's (not counted above)
  u64 warmup_misses = 0;      // misses of the warm-up: >= frames, the pool was full when measuring began
  // Pool frames / database pages at the start of the run.
  double fraction() const {
    return database_pages ? static_cast<double>(frames) / static_cast<double>(database_pages) : 1.0;
  }
  double hit_ratio() const { return hits + misses ? static_cast<double>(hits) / static_cast<double>(hits + misses) : 0; }
};

}  // namespace dbrepro
