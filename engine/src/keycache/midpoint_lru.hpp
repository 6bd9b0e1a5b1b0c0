#pragma once
// MyISAM's replacement list for one key-cache segment: midpoint insertion.
// New blocks enter the warm sub-chain; a warm block hit kHitsToPromote times
// moves to the hot sub-chain; a hot block not hit for
// capacity * age_threshold / 100 hits of the segment is demoted to warm. The
// warm sub-chain keeps at least division_limit % of the blocks, so the default
// division_limit = 100 (MariaDB's) leaves no room for hot blocks: plain LRU.
// Victims come from the cold end of the warm chain. Slots are indices
// 0..capacity-1; the caller owns the blocks, this class only orders them.
#include <vector>

#include "common/types.hpp"

namespace dbrepro::keycache {

enum class Replacement : u8 { kMidpoint, kLru };
enum class Temperature : u8 { kWarm, kHot };

class MidpointLru {
 public:
  static constexpr u32 kHitsToPromote = 3;  // as MyISAM
  static constexpr u32 kNone = ~u32{0};

  MidpointLru(u32 capacity, u32 division_limit, u32 age_threshold, Replacement replacement);

  void inserted(u32 slot);  // a block just read from the file
  void hit(u32 slot);       // a block found in the cache
  void removed(u32 slot);   // the caller evicts or drops it
  u32 victim() const { return victim([](u32) { return true; }); }  // coldest block, kNone when empty

  // Coldest block that `evictable` accepts, warm chain first; kNone if none.
  template <class Evictable>
  u32 victim(Evictable&& evictable) const {
    for (const Chain& chain : chains_)
      for (u32 slot = chain.coldest; slot != kNone; slot = nodes_[slot].next)
        if (evictable(slot)) return slot;
    return kNone;
  }

  Temperature temperature(u32 slot) const { return nodes_[slot].temperature; }
  u32 warm_blocks() const { return chains_[0].size; }
  u32 hot_blocks() const { return chains_[1].size; }
  u32 capacity() const { return static_cast<u32>(nodes_.size()); }

 private:
  struct Node {
    u32 prev = kNone, next = kNone;  // prev = colder, next = hotter
    u32 hits = 0;
    u64 last_hit = 0;
    Temperature temperature = Temperature::kWarm;
  };
  struct Chain {
    u32 coldest = kNone, hottest = kNone, size = 0;
  };

  Chain& chain_of(Temperature t) { return chains_[t == Temperature::kHot ? 1 : 0]; }
  void unlink(u32 slot);
  void push_hottest(u32 slot, Temperature t);
  void demote_aged();

  std::vector<Node> nodes_;
  Chain chains_[2];
  u32 min_warm_;  // blocks the warm chain keeps (division limit)
  u64 age_limit_; // hits after which an untouched hot block turns warm
  u64 clock_ = 0; // hits so far in this segment
  Replacement replacement_;
};

}  // namespace dbrepro::keycache
