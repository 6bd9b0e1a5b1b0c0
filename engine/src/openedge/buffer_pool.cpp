#include "openedge/buffer_pool.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

namespace dbrepro::openedge {

BufferPool::BufferPool(const Database& db, const BufferPoolConfig& config)
    : db_(db), frames_(config.frames ? config.frames : db.pages.size()) {
  validate(config.latches);
  if (config.bucket_percent < 1 || config.bucket_percent > 1000)
    throw std::invalid_argument("bucket_percent: must be in 1..1000, got " + std::to_string(config.bucket_percent));
  const u32 buckets = std::max<u32>(1, static_cast<u32>(u64{frame_count()} * config.bucket_percent / 100));
  heads_.assign(buckets, kNoFrame);
  latch_count_ = config.latches.latches_for(buckets);
  latches_ = std::make_unique<BucketLatch[]>(latch_count_);
  for (u32 f = frame_count(); f-- > 0;) free_.push_back(f);
  // Warm the pool in page order (the article's runs hit 100% in the pool).
  AccessCounters warmup;
  for (PageId p = 0; p < db.pages.size() && p < frame_count(); ++p) unfix(fix(p, warmup));
}

u32 BufferPool::find(u32 bucket, PageId page) const {
  for (u32 f = heads_[bucket]; f != kNoFrame; f = frames_[f].next_in_bucket)
    if (frames_[f].page.load(std::memory_order_relaxed) == page) return f;
  return kNoFrame;
}

void BufferPool::unlink(u32 bucket, u32 frame) {
  u32* link = &heads_[bucket];
  while (*link != frame) link = &frames_[*link].next_in_bucket;
  *link = frames_[frame].next_in_bucket;
  frames_[frame].next_in_bucket = kNoFrame;
}

Frame* BufferPool::fix(PageId page, AccessCounters& counters) {
  ++counters.hash_lookups;
  const u32 bucket = bucket_of(page);
  RwLatch& latch = latch_of(bucket);
  latch.lock_shared();
  const u32 f = find(bucket, page);
  if (f != kNoFrame) {
    // Under the bucket latch no eviction of this bucket is in progress: the pin holds.
    frames_[f].pins.fetch_add(1, std::memory_order_acquire);
    latch.unlock_shared();
    return &frames_[f];
  }
  latch.unlock_shared();
  ++counters.misses;
  return load(page);
}

bool BufferPool::revalidate(Frame* frame, PageId page, u64 version) {
  const u32 before = frame->pins.fetch_add(1, std::memory_order_acquire);
  if (before >= kEvicting || frame->page.load(std::memory_order_acquire) != page ||
      frame->version.load(std::memory_order_acquire) != version) {
    frame->pins.fetch_sub(1, std::memory_order_release);
    return false;
  }
  return true;
}

u32 BufferPool::take_victim() {
  std::lock_guard guard(free_mutex_);
  if (!free_.empty()) {
    const u32 f = free_.back();
    free_.pop_back();
    return f;
  }
  // Clock over unpinned frames; the victim leaves its bucket under that bucket's latch.
  for (u64 tries = 0; tries < 4 * u64{frame_count()}; ++tries) {
    const u32 f = clock_hand_;
    clock_hand_ = (clock_hand_ + 1) % frame_count();
    Frame& frame = frames_[f];
    const PageId held = frame.page.load(std::memory_order_relaxed);
    if (held == kInvalidPage) continue;
    const u32 bucket = bucket_of(held);
    RwLatch& latch = latch_of(bucket);
    latch.lock();
    u32 unpinned = 0;
    if (frame.page.load(std::memory_order_relaxed) == held &&
        frame.pins.compare_exchange_strong(unpinned, kEvicting, std::memory_order_acquire)) {
      unlink(bucket, f);
      frame.page.store(kInvalidPage, std::memory_order_release);
      frame.version.fetch_add(1, std::memory_order_release);
      latch.unlock();
      return f;
    }
    latch.unlock();
  }
  throw std::runtime_error("buffer pool: every frame is pinned (" + std::to_string(frame_count()) + " frames)");
}

Frame* BufferPool::load(PageId page) {
  if (page >= db_.pages.size()) throw std::out_of_range("buffer pool: no page " + std::to_string(page));
  const u32 victim = take_victim();
  Frame& frame = frames_[victim];
  std::memcpy(frame.bytes.data(), db_.pages[page]->data(), kPageBytes);
  const u32 bucket = bucket_of(page);
  RwLatch& latch = latch_of(bucket);
  latch.lock();
  const u32 existing = find(bucket, page);
  if (existing != kNoFrame) {  // another session loaded it meanwhile: use theirs
    frames_[existing].pins.fetch_add(1, std::memory_order_acquire);
    latch.unlock();
    std::lock_guard guard(free_mutex_);
    free_.push_back(victim);
    return &frames_[existing];
  }
  frame.page.store(page, std::memory_order_release);
  frame.version.fetch_add(1, std::memory_order_release);
  frame.next_in_bucket = heads_[bucket];
  heads_[bucket] = victim;
  frame.pins.fetch_sub(kEvicting - 1, std::memory_order_release);  // pinned once, by the caller
  latch.unlock();
  return &frame;
}

bool BufferPool::evict(PageId page) {
  const u32 bucket = bucket_of(page);
  RwLatch& latch = latch_of(bucket);
  latch.lock();
  const u32 f = find(bucket, page);
  u32 unpinned = 0;
  if (f == kNoFrame || !frames_[f].pins.compare_exchange_strong(unpinned, kEvicting, std::memory_order_acquire)) {
    latch.unlock();
    return false;
  }
  unlink(bucket, f);
  frames_[f].page.store(kInvalidPage, std::memory_order_release);
  frames_[f].version.fetch_add(1, std::memory_order_release);
  latch.unlock();
  std::lock_guard guard(free_mutex_);
  free_.push_back(f);
  return true;
}

void BufferPool::touch(PageId page) {
  AccessCounters ignored;
  Frame* frame = fix(page, ignored);
  frame->content.lock();
  frame->version.fetch_add(1, std::memory_order_release);
  frame->content.unlock();
  unfix(frame);
}

u32 BufferPool::resident_pages() const {
  u32 n = 0;
  for (const auto& f : frames_) n += f.page.load(std::memory_order_relaxed) != kInvalidPage;
  return n;
}

}  // namespace dbrepro::openedge
