#pragma once
// The B-tree's pages (btree/btree.hpp's Pages) read through a key cache, as
// MyISAM reads index pages: _mi_fetch_keypage asks key_cache_read for a copy
// of the block in the caller's own buffer, then searches the copy; nothing
// stays pinned or latched in the cache while the tree is walked. One per
// thread: it owns the buffers the copies go to (a descent or a cursor holds
// at most two at once). Read only: allocate() is refused.
#include <memory>
#include <stdexcept>
#include <vector>

#include "common/types.hpp"
#include "latch/latch.hpp"

namespace dbrepro::keycache {

template <class Cache>
class KeyPages {
 public:
  KeyPages(Cache& cache, u32 file_id) : cache_(&cache), file_id_(file_id), block_size_(cache.block_size()) {}
  KeyPages(const KeyPages&) = delete;
  KeyPages& operator=(const KeyPages&) = delete;

  u32 page_size() const { return block_size_; }
  PageId allocate() { throw std::logic_error("key pages: read only"); }

  std::byte* fix(PageId block, LatchMode = LatchMode::kShared) {
    std::byte* buffer = take_buffer();
    cache_->read(file_id_, block, buffer);
    return buffer;
  }
  void unfix(PageId, std::byte* page, LatchMode = LatchMode::kShared) { free_.push_back(page); }

 private:
  std::byte* take_buffer() {
    if (free_.empty()) {
      owned_.push_back(std::make_unique<std::byte[]>(block_size_));
      return owned_.back().get();
    }
    std::byte* buffer = free_.back();
    free_.pop_back();
    return buffer;
  }

  Cache* cache_;
  u32 file_id_;
  u32 block_size_;
  std::vector<std::unique_ptr<std::byte[]>> owned_;
  std::vector<std::byte*> free_;
};

}  // namespace dbrepro::keycache
