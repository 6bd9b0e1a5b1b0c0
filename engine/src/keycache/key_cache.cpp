#include "keycache/key_cache.hpp"

#include <algorithm>

#include "common/page_size.hpp"

namespace dbrepro::keycache {

void validate(const KeyCacheConfig& config) {
  check_page_size("block_size", config.block_size, kMinBlockSize, kMaxKeyBlockSize);
  if (config.segments > 64)
    throw std::invalid_argument("segments: must be in 0..64 (MariaDB's limit), got " +
                                std::to_string(config.segments));
  if (config.division_limit < 1 || config.division_limit > 100)
    throw std::invalid_argument("division_limit: must be in 1..100, got " + std::to_string(config.division_limit));
  if (config.age_threshold < 100)
    throw std::invalid_argument("age_threshold: must be >= 100, got " + std::to_string(config.age_threshold));
  const u64 blocks = config.buffer_bytes / config.block_size;
  if (blocks < 8ull * std::max<u32>(1, config.segments))
    throw std::invalid_argument("buffer_bytes: too small, needs at least 8 blocks per segment");
  if (blocks >= (u64{1} << 31)) throw std::invalid_argument("buffer_bytes: more than 2^31 blocks");
}

u32 blocks_per_segment(const KeyCacheConfig& config) {
  return static_cast<u32>(config.buffer_bytes / config.block_size / std::max<u32>(1, config.segments));
}

}  // namespace dbrepro::keycache
