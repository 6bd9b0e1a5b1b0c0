#pragma once
// The queues replacement policies are built from. A policy keeps its state
// per slot (a frame of the pool, or a cache line of the trace simulator), so
// its queues hold slot numbers, never pointers.
//   SlotRing: a fixed-capacity FIFO ring (FIFO, CLOCK, S3-FIFO, 2Q, SoQoL).
//   SlotList: a doubly-linked list over slots, for removal from the middle
//             (LRU, SIEVE, 2Q's LRU part).
//   SlotCounters: one atomic byte per slot (reference bits, frequencies,
//             access statistics), so that a hit writes one byte and takes no lock.
//   GhostFifo: ids recently evicted, in FIFO order, with removal on a hit.
#include <atomic>
#include <deque>
#include <memory>
#include <stdexcept>
#include <unordered_map>

#include "common/types.hpp"

namespace dbrepro::cache {

inline constexpr u32 kNoSlot = ~u32{0};

class SlotRing {
 public:
  explicit SlotRing(u32 capacity) : capacity_(capacity), slots_(std::make_unique<u32[]>(capacity ? capacity : 1)) {}

  void push_back(u32 slot) {
    if (size_ == capacity_) throw std::logic_error("SlotRing: full");
    slots_[(head_ + size_) % capacity_] = slot;
    ++size_;
  }
  u32 front() const { return slots_[head_]; }
  u32 pop_front() {
    const u32 slot = slots_[head_];
    head_ = (head_ + 1) % capacity_;
    --size_;
    return slot;
  }
  u32 size() const { return size_; }
  bool empty() const { return size_ == 0; }

 private:
  u32 capacity_;
  std::unique_ptr<u32[]> slots_;
  u32 head_ = 0;
  u32 size_ = 0;
};

// head = newest, tail = oldest.
class SlotList {
 public:
  explicit SlotList(u32 capacity) : prev_(std::make_unique<u32[]>(capacity)), next_(std::make_unique<u32[]>(capacity)) {}

  void push_head(u32 slot) {
    prev_[slot] = kNoSlot;
    next_[slot] = head_;
    if (head_ != kNoSlot) prev_[head_] = slot;
    head_ = slot;
    if (tail_ == kNoSlot) tail_ = slot;
    ++size_;
  }
  void remove(u32 slot) {
    (prev_[slot] != kNoSlot ? next_[prev_[slot]] : head_) = next_[slot];
    (next_[slot] != kNoSlot ? prev_[next_[slot]] : tail_) = prev_[slot];
    --size_;
  }
  void move_to_head(u32 slot) {
    if (slot == head_) return;
    remove(slot);
    push_head(slot);
  }
  u32 head() const { return head_; }
  u32 tail() const { return tail_; }
  u32 newer(u32 slot) const { return prev_[slot]; }  // towards the head
  u32 size() const { return size_; }

 private:
  std::unique_ptr<u32[]> prev_;
  std::unique_ptr<u32[]> next_;
  u32 head_ = kNoSlot;
  u32 tail_ = kNoSlot;
  u32 size_ = 0;
};

// Relaxed atomics: a racing hit may be lost or counted late, which only
// changes which page a policy keeps, never correctness of the pool.
class SlotCounters {
 public:
  explicit SlotCounters(u32 capacity) : values_(std::make_unique<std::atomic<u8>[]>(capacity)) {}

  u8 get(u32 slot) const { return values_[slot].load(std::memory_order_relaxed); }
  void set(u32 slot, u8 v) { values_[slot].store(v, std::memory_order_relaxed); }
  // Saturating increment; a plain store when already at the cap (no write).
  void bump(u32 slot, u8 cap) {
    const u8 v = get(slot);
    if (v < cap) set(slot, static_cast<u8>(v + 1));
  }

 private:
  std::unique_ptr<std::atomic<u8>[]> values_;
};

// Ids only, no pages. Removal leaves a stale entry in the queue that the
// next eviction skips, so both operations are O(1).
class GhostFifo {
 public:
  explicit GhostFifo(u64 capacity) : capacity_(capacity) {}

  // Adds an id, dropping the oldest live one when full.
  void add(u64 id) {
    if (capacity_ == 0) return;
    while (live_.size() >= capacity_) {
      const Entry oldest = queue_.front();
      queue_.pop_front();
      auto it = live_.find(oldest.id);
      if (it != live_.end() && it->second == oldest.seq) live_.erase(it);
    }
    live_[id] = next_seq_;
    queue_.push_back(Entry{id, next_seq_++});
  }
  // True (and forgets it) if the id was there.
  bool take(u64 id) { return live_.erase(id) > 0; }
  u64 size() const { return live_.size(); }

 private:
  struct Entry {
    u64 id;
    u64 seq;
  };
  u64 capacity_;
  std::deque<Entry> queue_;
  std::unordered_map<u64, u64> live_;
  u64 next_seq_ = 0;
};

// Guards eviction loops against a pool whose every frame is pinned.
class EvictionBudget {
 public:
  explicit EvictionBudget(u32 capacity) : left_(u64{capacity} * 16 + 64) {}
  void step() {
    if (--left_ == 0) throw std::runtime_error("buffer pool: no evictable frame (every frame pinned?)");
  }

 private:
  u64 left_;
};

}  // namespace dbrepro::cache
