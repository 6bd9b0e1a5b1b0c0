#pragma once
// MyISAM's key-cache replacement (mysys/mf_keycache.c), midpoint insertion:
// a block read from the file enters the warm sub-chain; a warm block hit
// kHitsToPromote times moves to the hot sub-chain; a hot block not hit for
// capacity * age_threshold / 100 hits is demoted to warm. The warm chain
// keeps at least division_limit % of the blocks, so MariaDB's default
// division_limit = 100 leaves no room for hot blocks: plain LRU. Victims
// come from the cold end of the warm chain, then of the hot chain.
//
// A ReplacementPolicy (cache/policy.hpp) with options, one per key-cache
// segment: it takes no lock of its own, so the page cache must run it per
// partition, under the partition's latch (MyISAM's cache_lock), hits included.
#include <memory>
#include <stdexcept>

#include "cache/slot_queues.hpp"
#include "common/types.hpp"

namespace dbrepro::cache {

struct MidpointLruOptions {
  u32 division_limit = 100;  // key_cache_division_limit (MariaDB's default: plain LRU)
  u32 age_threshold = 300;   // key_cache_age_threshold
  bool promote = true;       // false: never promote, whatever the limit (plain LRU)
};

class MidpointLru {
 public:
  static constexpr const char* kName = "midpoint";
  static constexpr u32 kHitsToPromote = 3;  // as MyISAM

  enum class Temperature : u8 { kWarm, kHot };
  using Options = MidpointLruOptions;

  explicit MidpointLru(u32 capacity, Options options = {})
      : warm_(capacity),
        hot_(capacity),
        state_(std::make_unique<State[]>(capacity)),
        capacity_(capacity),
        min_warm_(static_cast<u32>(u64{capacity} * options.division_limit / 100)),
        age_limit_(u64{capacity} * options.age_threshold / 100),
        promote_(options.promote) {}

  void hit(u32 slot) {
    State& s = state_[slot];
    s.last_hit = ++clock_;
    ++s.hits;
    const bool hot = s.temperature == Temperature::kHot ||
                     (promote_ && s.hits >= kHitsToPromote && hot_.size() + min_warm_ < capacity_);
    chain(s.temperature).remove(slot);
    s.temperature = hot ? Temperature::kHot : Temperature::kWarm;
    chain(s.temperature).push_head(slot);
    if (promote_) demote_aged();
  }
  void miss(u64) {}

  template <class Claim>
  u32 evict(Claim&& claim) {
    for (SlotList* c : {&warm_, &hot_})
      for (u32 slot = c->tail(); slot != kNoSlot; slot = c->newer(slot))
        if (claim(slot)) {
          c->remove(slot);
          return slot;
        }
    throw std::runtime_error("key cache: no evictable block (every block in use)");
  }

  void insert(u32 slot, u64) {
    state_[slot] = State{0, clock_, Temperature::kWarm};
    warm_.push_head(slot);
  }

  u64 hit_locks() const { return 0; }  // none of its own: the segment's latch covers it

  Temperature temperature(u32 slot) const { return state_[slot].temperature; }
  u32 warm_blocks() const { return warm_.size(); }
  u32 hot_blocks() const { return hot_.size(); }

 private:
  struct State {
    u32 hits = 0;
    u64 last_hit = 0;
    Temperature temperature = Temperature::kWarm;
  };
  SlotList& chain(Temperature t) { return t == Temperature::kHot ? hot_ : warm_; }

  void demote_aged() {
    while (hot_.tail() != kNoSlot && clock_ - state_[hot_.tail()].last_hit > age_limit_) {
      const u32 slot = hot_.tail();
      hot_.remove(slot);
      state_[slot].hits = 0;
      state_[slot].temperature = Temperature::kWarm;
      warm_.push_head(slot);
    }
  }

  SlotList warm_, hot_;  // head = most recently used, tail = the next victim
  std::unique_ptr<State[]> state_;
  u32 capacity_;
  u32 min_warm_;   // blocks the warm chain keeps (division limit)
  u64 age_limit_;  // hits after which an untouched hot block turns warm
  u64 clock_ = 0;  // hits so far in this segment
  bool promote_;
};

}  // namespace dbrepro::cache
