#include "sysbench/index_btree.hpp"

#include <algorithm>

namespace dbrepro::sysbench {

namespace {
// Writes one level; returns each block's (first key, block number) for the level above.
std::vector<IndexEntry> write_level(keycache::BlockFile& file, u32* next_block, const std::vector<IndexEntry>& entries,
                                    u16 level) {
  const u32 per_block = entries_per_block(file.block_size());
  std::vector<std::byte> buffer(file.block_size());
  std::vector<IndexEntry> parents;
  for (size_t start = 0; start < entries.size(); start += per_block) {
    const u32 count = static_cast<u32>(std::min<size_t>(per_block, entries.size() - start));
    const u32 block = (*next_block)++;
    const bool last = start + per_block >= entries.size();
    const BlockHeader h{static_cast<u16>(count), level, level == 0 && !last ? block + 1 : kNoBlock};
    std::fill(buffer.begin(), buffer.end(), std::byte{0});
    std::memcpy(buffer.data(), &h, sizeof h);
    std::memcpy(buffer.data() + sizeof h, entries.data() + start, count * sizeof(IndexEntry));
    file.write(block, buffer.data());
    parents.push_back({entries[start].key, block});
  }
  return parents;
}
}  // namespace

IndexRoot bulk_load(keycache::BlockFile& file, u32* next_block, const std::vector<IndexEntry>& sorted) {
  if (sorted.empty()) return {};
  std::vector<IndexEntry> level = write_level(file, next_block, sorted, 0);
  u32 height = 1;
  while (level.size() > 1) level = write_level(file, next_block, level, static_cast<u16>(height++));
  return {level.front().value, height};
}

}  // namespace dbrepro::sysbench
