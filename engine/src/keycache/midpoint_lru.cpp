#include "keycache/midpoint_lru.hpp"

namespace dbrepro::keycache {

MidpointLru::MidpointLru(u32 capacity, u32 division_limit, u32 age_threshold, Replacement replacement)
    : nodes_(capacity),
      min_warm_(static_cast<u32>(u64{capacity} * division_limit / 100)),
      age_limit_(u64{capacity} * age_threshold / 100),
      replacement_(replacement) {}

void MidpointLru::unlink(u32 slot) {
  Node& n = nodes_[slot];
  Chain& c = chain_of(n.temperature);
  if (n.prev != kNone) nodes_[n.prev].next = n.next; else c.coldest = n.next;
  if (n.next != kNone) nodes_[n.next].prev = n.prev; else c.hottest = n.prev;
  n.prev = n.next = kNone;
  --c.size;
}

void MidpointLru::push_hottest(u32 slot, Temperature t) {
  Node& n = nodes_[slot];
  n.temperature = t;
  Chain& c = chain_of(t);
  n.prev = c.hottest;
  n.next = kNone;
  if (c.hottest != kNone) nodes_[c.hottest].next = slot; else c.coldest = slot;
  c.hottest = slot;
  ++c.size;
}

void MidpointLru::inserted(u32 slot) {
  nodes_[slot].hits = 0;
  nodes_[slot].last_hit = clock_;
  push_hottest(slot, Temperature::kWarm);
}

void MidpointLru::hit(u32 slot) {
  Node& n = nodes_[slot];
  n.last_hit = ++clock_;
  ++n.hits;
  unlink(slot);
  const bool promote = replacement_ == Replacement::kMidpoint && n.temperature == Temperature::kWarm &&
                       n.hits >= kHitsToPromote && hot_blocks() + min_warm_ < capacity();
  push_hottest(slot, promote || n.temperature == Temperature::kHot ? Temperature::kHot : Temperature::kWarm);
  if (replacement_ == Replacement::kMidpoint) demote_aged();
}

void MidpointLru::demote_aged() {
  Chain& hot = chains_[1];
  while (hot.coldest != kNone && clock_ - nodes_[hot.coldest].last_hit > age_limit_) {
    const u32 slot = hot.coldest;
    unlink(slot);
    nodes_[slot].hits = 0;
    push_hottest(slot, Temperature::kWarm);
  }
}

void MidpointLru::removed(u32 slot) { unlink(slot); }


}  // namespace dbrepro::keycache
