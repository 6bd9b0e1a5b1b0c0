#pragma once
// What one session's page accesses cost, counted where they happen (no shared
// atomics on the hot path) and summed when the session reports.
#include "common/types.hpp"

namespace dbrepro::openedge {

struct AccessCounters {
  u64 hash_lookups = 0;           // page found (or loaded) through the hash table
  u64 lookups_avoided = 0;        // optimistic cursor re-validated its remembered frame instead
  u64 revalidation_failures = 0;  // remembered frame evicted or changed: fell back to a lookup
  u64 misses = 0;                 // page not in the pool: read from the page store
  u64 record_reads = 0;           // records copied out of data pages

  AccessCounters& operator+=(const AccessCounters& o) {
    hash_lookups += o.hash_lookups;
    lookups_avoided += o.lookups_avoided;
    revalidation_failures += o.revalidation_failures;
    misses += o.misses;
    record_reads += o.record_reads;
    return *this;
  }
};

}  // namespace dbrepro::openedge
