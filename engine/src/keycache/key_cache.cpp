#include "keycache/key_cache.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

namespace dbrepro::keycache {

namespace {
u64 cache_key(u32 file, u64 block) { return (u64{file} << 48) | block; }
}  // namespace

KeyCache::KeyCache(const KeyCacheConfig& config) : config_(config) {
  if (config.block_size < 512 || config.block_size > 16384 || (config.block_size & (config.block_size - 1)) != 0)
    throw std::invalid_argument("block_size: must be a power of two in 512..16384, got " +
                                std::to_string(config.block_size));
  if (config.segments > 64) throw std::invalid_argument("segments: must be in 0..64 (MariaDB's limit), got " +
                                                        std::to_string(config.segments));
  if (config.division_limit < 1 || config.division_limit > 100)
    throw std::invalid_argument("division_limit: must be in 1..100, got " + std::to_string(config.division_limit));
  if (config.age_threshold < 100)
    throw std::invalid_argument("age_threshold: must be >= 100, got " + std::to_string(config.age_threshold));
  const u32 count = std::max<u32>(1, config.segments);
  const u64 blocks = config.buffer_bytes / config.block_size;
  if (blocks < 8ull * count)
    throw std::invalid_argument("buffer_bytes: too small, needs at least 8 blocks per segment");
  blocks_per_segment_ = static_cast<u32>(blocks / count);
  for (u32 i = 0; i < count; ++i) segments_.push_back(std::make_unique<Segment>(blocks_per_segment_, config.block_size, config));
}

namespace {
// try_lock first, so that a contended acquisition can be counted.
std::unique_lock<std::mutex> acquire(std::mutex& mutex, u64& waits) {
  std::unique_lock lock(mutex, std::try_to_lock);
  if (!lock.owns_lock()) {
    lock.lock();
    ++waits;  // counted once we hold it: no atomics needed
  }
  return lock;
}
}  // namespace

void KeyCache::read(const BlockFile& file, u32 file_id, u64 block, std::byte* out) {
  Segment& s = *segments_[segment_of(file_id, block, config_.segments)];
  const u64 key = cache_key(file_id, block);
  const u32 size = config_.block_size;
  auto lock = acquire(s.mutex, s.counters.mutex_waits);
  if (auto it = s.slot_of.find(key); it != s.slot_of.end()) {
    // A hit, as MyISAM's key_cache_read: register a request (the block cannot
    // be evicted), copy outside the mutex, then take it again to unregister.
    const u32 slot = it->second;
    ++s.counters.hits;
    s.lru.hit(slot);
    ++s.pins[slot];
    lock.unlock();
    std::memcpy(out, s.memory.data() + u64{slot} * size, size);
    lock = acquire(s.mutex, s.counters.mutex_waits);
    --s.pins[slot];
    return;
  }
  ++s.counters.misses;
  u32 slot;
  if (s.used < s.lru.capacity()) {
    slot = s.used++;
  } else {
    slot = s.lru.victim([&](u32 candidate) { return s.pins[candidate] == 0; });
    if (slot == MidpointLru::kNone) {  // every block in use: read around the cache, as MyISAM does
      file.read(block, out);
      return;
    }
    s.lru.removed(slot);
    s.slot_of.erase(s.owner[slot]);
  }
  // Read under the mutex: simpler than MyISAM's in-flight block states, and
  // misses only happen while the cache warms up (the index fits).
  std::byte* data = s.memory.data() + u64{slot} * size;
  file.read(block, data);
  s.owner[slot] = key;
  s.slot_of.emplace(key, slot);
  s.lru.inserted(slot);
  std::memcpy(out, data, size);
}

std::vector<KeyCacheCounters> KeyCache::segment_counters() const {
  std::vector<KeyCacheCounters> all;
  for (const auto& s : segments_) {
    std::lock_guard lock(s->mutex);
    all.push_back(s->counters);
  }
  return all;
}

KeyCacheCounters KeyCache::counters() const {
  KeyCacheCounters sum;
  for (const auto& c : segment_counters()) {
    sum.hits += c.hits;
    sum.misses += c.misses;
    sum.mutex_waits += c.mutex_waits;
  }
  return sum;
}

void KeyCache::reset_counters() {
  for (auto& s : segments_) {
    std::lock_guard lock(s->mutex);
    s->counters = {};
  }
}

}  // namespace dbrepro::keycache
