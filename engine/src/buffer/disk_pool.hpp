#pragma once
// A disk-backed buffer pool (E5): the database lives in a file; the pool
// holds a fraction of its pages in frames; a miss reads the page with pread,
// a dirty victim is written back before its frame is reused. Which page
// leaves is the replacement Policy's choice (cache/policy.hpp).
//
// Concurrency: a page id maps to its frame through one atomic word per page;
// a frame's latch and version are one atomic word (buffer/disk_frame_word.hpp).
// A hit is a compare-and-swap on that word plus the policy's hit(), which for
// the FIFO family writes one byte and for LRU takes the LRU lock. Misses run
// the policy one at a time under the miss latch; the I/O itself runs outside
// it, on a frame the pool holds latched.
//
// Life cycle: the database is loaded with every page in memory; start_run()
// then writes every dirty page to the file, empties the pool and shrinks it
// to `fraction` of the database's pages (a cold start, as after a restart),
// and zeroes the counters; end_run() takes them: what a run reports is its
// measured phase only. A recording pool (RecordTrace, single thread) keeps
// the page ids of every fix in between.
// A page latched exclusively is taken to be changed: it is dirty on unfix.
#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "buffer/disk_file.hpp"
#include "buffer/disk_frame_word.hpp"
#include "buffer/disk_pool_stats.hpp"
#include "cache/policy.hpp"
#include "cache/slot_queues.hpp"
#include "cache/trace_file.hpp"
#include "latch/latch.hpp"

namespace dbrepro {

struct DiskPoolOptions {
  double fraction = 0.1;    // pool frames / database pages, for the run
  std::string data_dir;     // where the database file goes ("": $TMPDIR or /tmp)
  bool o_direct = true;     // try O_DIRECT
  u32 min_frames = 256;     // never fewer frames (pinned pages of many terminals)
  std::string trace_path;   // with a recording pool: where the reference string goes
  std::string trace_format = "txt";
};

// Recording the page-id reference string is a compile-time choice too.
struct NoTrace {
  void start() {}
  void stop() {}
  void record(PageId) {}
  const std::vector<u64>* ids() const { return nullptr; }
};
class RecordTrace {
 public:
  void start() {
    ids_.clear();
    on_ = true;
  }
  void stop() { on_ = false; }
  void record(PageId pid) {
    if (on_) ids_.push_back(pid);
  }
  const std::vector<u64>* ids() const { return &ids_; }

 private:
  std::vector<u64> ids_;
  bool on_ = false;
};

template <class Latching, cache::ReplacementPolicy Policy, class Trace = NoTrace>
class DiskPool {
 public:
  static constexpr const char* kName = "disk pool";

  DiskPool(u32 page_size, size_t capacity_pages, const DiskPoolOptions& options)
      : page_size_(page_size),
        max_pages_(capacity_pages),
        options_(options),
        file_(options.data_dir, page_size, options.o_direct),
        frame_of_(std::make_unique<std::atomic<u32>[]>(capacity_pages)),
        words_(std::make_unique<std::atomic<u64>[]>(capacity_pages)),
        page_of_(std::make_unique<std::atomic<PageId>[]>(capacity_pages)),
        dirty_(std::make_unique<std::atomic<bool>[]>(capacity_pages)),
        policy_(std::make_unique<Policy>(static_cast<u32>(capacity_pages))) {
    if (page_size < 1024 || (page_size & (page_size - 1)) != 0)
      throw std::invalid_argument("page_size must be a power of two >= 1024");
    if (!(options.fraction > 0 && options.fraction <= 1))
      throw std::invalid_argument("pool_fraction: must be in (0, 1], got " + std::to_string(options.fraction));
    void* arena = ::mmap(nullptr, arena_bytes(), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                         -1, 0);
    if (arena == MAP_FAILED) throw std::runtime_error(std::string("disk pool: mmap: ") + std::strerror(errno));
    arena_ = static_cast<std::byte*>(arena);
    for (size_t i = 0; i < capacity_pages; ++i) frame_of_[i].store(cache::kNoSlot, std::memory_order_relaxed);
    limit_ = static_cast<u32>(capacity_pages);
  }
  ~DiskPool() { ::munmap(arena_, arena_bytes()); }
  DiskPool(const DiskPool&) = delete;
  DiskPool& operator=(const DiskPool&) = delete;

  // A new zero-filled page, resident and dirty (it is not in the file yet).
  PageId allocate() {
    const size_t pid = pages_.fetch_add(1);
    if (pid >= max_pages_) {
      pages_.fetch_sub(1);
      throw std::runtime_error("disk pool: more than " + std::to_string(max_pages_) + " pages");
    }
    trace_.record(static_cast<PageId>(pid));  // a new page enters the cache: a miss in the trace too
    const u32 f = fill(static_cast<PageId>(pid), /*read=*/false);
    std::memset(frame(f), 0, page_size_);
    dirty_[f].store(true, std::memory_order_relaxed);
    frame_word::release_exclusive(words_[f]);
    return static_cast<PageId>(pid);
  }

  std::byte* fix(PageId pid, LatchMode mode = LatchMode::kShared) {
    trace_.record(pid);
    const bool exclusive = mode == LatchMode::kExclusive;
    for (;;) {
      const u32 f = frame_of_[pid].load(std::memory_order_acquire);
      if (f == cache::kNoSlot) {
        const u32 filled = fill(pid, /*read=*/true);
        if (filled == cache::kNoSlot) continue;  // someone else is reading it
        if (!exclusive) {  // fill() leaves the frame latched exclusively
          words_[filled].store(frame_word::unlatched_next_version(words_[filled].load()) | 1,
                               std::memory_order_release);
        }
        return frame(filled);
      }
      if (exclusive ? frame_word::try_exclusive(words_[f]) : frame_word::try_shared(words_[f])) {
        if (page_of_[f].load(std::memory_order_relaxed) == pid) {  // not reused for another page since we looked
          hits_.add();
          policy_->hit(f);
          return frame(f);
        }
        exclusive ? frame_word::release_exclusive(words_[f]) : frame_word::release_shared(words_[f]);
      }
      frame_word::backoff();
    }
  }

  void unfix(PageId, std::byte* page, LatchMode mode = LatchMode::kShared) {
    const u32 f = static_cast<u32>(static_cast<size_t>(page - arena_) / page_size_);
    if (mode == LatchMode::kExclusive) {
      dirty_[f].store(true, std::memory_order_relaxed);
      frame_word::release_exclusive(words_[f]);
    } else {
      frame_word::release_shared(words_[f]);
    }
  }

  // The measured phase begins: every dirty page to the file, the pool
  // emptied and shrunk to its fraction of the database, counters zeroed.
  void start_run() {
    std::lock_guard guard(miss_latch_);
    const size_t pages = pages_.load();
    for (PageId pid = 0; pid < pages; ++pid) {
      const u32 f = frame_of_[pid].load(std::memory_order_relaxed);
      if (f == cache::kNoSlot) continue;
      if (dirty_[f].load(std::memory_order_relaxed)) file_.write(pid, frame(f));
      dirty_[f].store(false, std::memory_order_relaxed);
      frame_of_[pid].store(cache::kNoSlot, std::memory_order_relaxed);
    }
    ::madvise(arena_, arena_bytes(), MADV_DONTNEED);  // memory of the load goes back
    const auto wanted = static_cast<u64>(std::ceil(options_.fraction * static_cast<double>(pages)));
    limit_ = static_cast<u32>(std::min<u64>(std::max<u64>(wanted, options_.min_frames), max_pages_));
    used_ = 0;
    policy_ = std::make_unique<Policy>(limit_);
    run_pages_ = pages;
    hits_.reset();
    misses_ = reads_ = writes_ = 0;
    trace_.start();
  }

  // The measured phase ends (before the consistency check reads every
  // page): the reference string goes to its file; the counters as they are.
  DiskPoolStats end_run() {
    trace_.stop();
    if (const auto* ids = trace_.ids(); ids && !options_.trace_path.empty())
      cache::write_trace(options_.trace_path, *ids, cache::parse_trace_format(options_.trace_format), page_size_);
    return stats();
  }

  DiskPoolStats stats() const {
    DiskPoolStats s;
    s.policy = Policy::kName;
    s.frames = limit_;
    s.database_pages = run_pages_;
    s.fraction = run_pages_ ? static_cast<double>(limit_) / static_cast<double>(run_pages_) : 1.0;
    s.hits = hits_.total();
    s.misses = misses_;
    s.reads = reads_;
    s.writes = writes_;
    s.hit_locks = policy_->hit_locks();
    s.o_direct = file_.direct();
    return s;
  }
  const std::vector<u64>* trace() const { return trace_.ids(); }
  const DiskPoolOptions& options() const { return options_; }

  u32 page_size() const { return page_size_; }
  size_t page_count() const { return pages_.load(); }
  size_t bytes() const { return page_count() * static_cast<size_t>(page_size_); }

 private:
  std::byte* frame(u32 f) const { return arena_ + static_cast<size_t>(f) * page_size_; }
  size_t arena_bytes() const { return max_pages_ * static_cast<size_t>(page_size_); }

  // Makes pid resident in a frame and returns it latched exclusively, or
  // kNoSlot if another thread made it resident meanwhile.
  u32 fill(PageId pid, bool read) {
    u32 f;
    PageId old = kInvalidPage;
    {
      std::lock_guard guard(miss_latch_);
      if (frame_of_[pid].load(std::memory_order_acquire) != cache::kNoSlot) return cache::kNoSlot;
      ++misses_;
      policy_->miss(pid);
      if (used_ < limit_) {
        f = used_++;
        words_[f].store(frame_word::kEvicting, std::memory_order_relaxed);
      } else {
        f = policy_->evict([&](u32 s) { return frame_word::try_exclusive(words_[s], frame_word::kEvicting); });
        old = page_of_[f].load(std::memory_order_relaxed);
      }
      page_of_[f].store(pid, std::memory_order_relaxed);
      frame_of_[pid].store(f, std::memory_order_release);  // fixers of pid wait on the latched frame
      policy_->insert(f, pid);
      if (old != kInvalidPage && dirty_[f].load(std::memory_order_relaxed)) ++writes_;
      if (read) ++reads_;
    }
    // Outside the miss latch: fixers of `old` still find this frame and
    // wait on its latch, so nobody reads `old` from the file before it is there.
    if (old != kInvalidPage) {
      if (dirty_[f].load(std::memory_order_relaxed)) file_.write(old, frame(f));
      frame_of_[old].store(cache::kNoSlot, std::memory_order_release);
    }
    dirty_[f].store(false, std::memory_order_relaxed);
    if (read) file_.read(pid, frame(f));
    frame_word::hand_over(words_[f], /*exclusive=*/true);
    return f;
  }

  u32 page_size_;
  size_t max_pages_;
  DiskPoolOptions options_;
  DiskFile file_;
  std::byte* arena_ = nullptr;
  std::atomic<size_t> pages_{0};
  std::unique_ptr<std::atomic<u32>[]> frame_of_;  // per page id: its frame, or kNoSlot
  std::unique_ptr<std::atomic<u64>[]> words_;     // per frame: latch + version
  std::unique_ptr<std::atomic<PageId>[]> page_of_;  // per frame: its page
  std::unique_ptr<std::atomic<bool>[]> dirty_;    // per frame
  std::mutex miss_latch_;
  std::unique_ptr<Policy> policy_;
  u32 limit_;
  u32 used_ = 0;  // frames handed out so far; the rest are the free area
  size_t run_pages_ = 0;
  StripedCounter hits_;
  u64 misses_ = 0, reads_ = 0, writes_ = 0;  // under the miss latch
  Trace trace_;
};

}  // namespace dbrepro
