#pragma once
// Replays a page-id reference string through a policy of a given capacity,
// exactly as a cache simulator does (libCacheSim's cache_get_base): a hit
// updates the policy; a miss fills a free slot while there is one, else
// evicts one page, then inserts. The first `warmup` requests fill the cache
// without being counted (a trace recorded with a warm-up at its head).
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "cache/policies.hpp"

namespace dbrepro::cache {

struct TraceStats {
  u64 requests = 0;
  u64 hits = 0;
  u64 misses = 0;
  u64 hit_locks = 0;  // locks the policy took on hits
  u64 ghost_hits = 0;  // misses found in the policy's ghost (2Q, S3-FIFO; 0 without one)
  double hit_ratio() const { return requests ? static_cast<double>(hits) / static_cast<double>(requests) : 0.0; }
};

template <ReplacementPolicy P>
TraceStats simulate(std::span<const u64> trace, u32 capacity, u64 warmup = 0) {
  if (capacity == 0) throw std::invalid_argument("capacity: must be >= 1");
  if (warmup > trace.size())
    throw std::invalid_argument("warmup: " + std::to_string(warmup) + " requests, the trace has " +
                                std::to_string(trace.size()));
  P policy(capacity);
  std::unordered_map<u64, u32> slot_of;
  slot_of.reserve(capacity * 2);
  std::vector<u64> id_of(capacity);
  u32 used = 0;
  TraceStats stats;
  u64 warmup_hit_locks = 0;
  u64 warmup_ghost_hits = 0;
  for (u64 i = 0; i < trace.size(); ++i) {
    if (i == warmup) {
      stats = {};
      warmup_hit_locks = policy.hit_locks();
      warmup_ghost_hits = ghost_hits_of(policy);
    }
    const u64 id = trace[i];
    ++stats.requests;
    if (auto it = slot_of.find(id); it != slot_of.end()) {
      ++stats.hits;
      policy.hit(it->second);
      continue;
    }
    ++stats.misses;
    policy.miss(id);
    u32 slot;
    if (used < capacity) {
      slot = used++;
    } else {
      slot = policy.evict(claim_any);
      slot_of.erase(id_of[slot]);
    }
    id_of[slot] = id;
    slot_of.emplace(id, slot);
    policy.insert(slot, id);
  }
  if (warmup == trace.size()) {  // nothing left to count
    stats = {};
    warmup_hit_locks = policy.hit_locks();
    warmup_ghost_hits = ghost_hits_of(policy);
  }
  stats.hit_locks = policy.hit_locks() - warmup_hit_locks;
  stats.ghost_hits = ghost_hits_of(policy) - warmup_ghost_hits;
  return stats;
}

// The same, by policy name (throws std::invalid_argument for an unknown one).
TraceStats simulate(const std::string& policy, std::span<const u64> trace, u32 capacity, u64 warmup = 0);

}  // namespace dbrepro::cache
