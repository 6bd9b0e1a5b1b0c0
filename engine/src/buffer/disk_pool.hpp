#pragma once
// A disk-backed buffer pool (E5), a configuration of the page cache
// (buffer/page_cache.hpp): the database lives in a file; the pool
// holds a fraction of its pages in frames; a miss reads the page with pread,
// a dirty victim is written back before its frame is reused. Which page
// leaves is the replacement Policy's choice (cache/policy.hpp).
//
// Concurrency: a page id maps to its frame through one atomic word per page;
// a frame's latch and version are one atomic word (buffer/frame_state.hpp).
// A hit is a compare-and-swap on that word plus the policy's hit(), which for
// the FIFO family writes one byte and for LRU takes the LRU lock. Misses run
// the policy one at a time under the miss latch; the I/O itself runs outside
// it, on a frame the pool holds latched.
//
// Life cycle: the database is loaded with every page in memory; start_run()
// then writes every dirty page to the file, empties the pool and shrinks it
// to `fraction` of the database's pages (a cold start, as after a restart),
// and zeroes the counters; a warm-up may follow, after which
// start_measured() starts the counters from zero again, the pool's contents
// kept (the steady state the article measured); end_run() takes them: what a
// run reports is its measured phase only. A recording pool (RecordTrace,
// single thread) keeps the page ids of every fix from start_run() on, the
// warm-up's first (their count is reported, so a simulator can replay them
// uncounted).
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

#include "buffer/disk_pool_stats.hpp"
#include "buffer/page_cache.hpp"
#include "cache/policy.hpp"
#include "cache/slot_queues.hpp"
#include "cache/trace_file.hpp"
#include "common/number_text.hpp"
#include "common/page_size.hpp"
#include "io/block_file.hpp"
#include "latch/blocking_latches.hpp"
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
  u64 size() const { return 0; }
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
  u64 size() const { return ids_.size(); }
  const std::vector<u64>* ids() const { return &ids_; }

 private:
  std::vector<u64> ids_;
  bool on_ = false;
};

// The database file behind the cache (keys are page ids).
struct DiskFileBacking {
  std::unique_ptr<BlockFile> file;
  void read(u64 key, std::byte* page) const { file->read(static_cast<PageId>(key), page); }
  void write(u64 key, const std::byte* page) const { file->write(static_cast<PageId>(key), page); }
};

template <cache::ReplacementPolicy Policy>
struct DiskPoolConfig {
  using PartitionLatch = PlainMutex;     // the miss latch
  using ReplacementLatch = NullMutex;    // misses already run one at a time
  using FrameLatch = NullRwLatch;        // the frame's latch is its state word
  using Replacement = Policy;
  using Partitioning = HashPartitioning;  // unused by the atomic map
  using Backing = DiskFileBacking;
  static constexpr Lookup kLookup = Lookup::kAtomicMap;
  static constexpr bool kReplacementPerPartition = false;
  static constexpr bool kUnpinUnderLatch = false;
  static constexpr bool kVersioned = false;
  static constexpr bool kCount = true;
};

// Latching is the stack's; the pool's own latches are the frame words and
// the miss latch, which a correct multi-threaded pool cannot do without.
template <class Latching, cache::ReplacementPolicy Policy, class Trace = NoTrace>
class DiskPool {
 public:
  static constexpr const char* kName = "disk pool";
  using Cache = PageCache<DiskPoolConfig<Policy>>;

  DiskPool(u32 page_size, size_t capacity_pages, const DiskPoolOptions& options)
      : options_(checked(options)),
        cache_(cache_options(page_size, capacity_pages),
               DiskFileBacking{
                   std::make_unique<BlockFile>(BlockFile::temporary(options.data_dir, page_size, options.o_direct))}) {}

  PageId allocate() {
    trace_.record(static_cast<PageId>(cache_.page_count()));  // a new page enters the cache: a miss in the trace too
    return cache_.allocate();
  }
  std::byte* fix(PageId pid, LatchMode mode = LatchMode::kShared) {
    trace_.record(pid);
    return cache_.fix(pid, mode);
  }
  void unfix(PageId pid, std::byte* page, LatchMode mode = LatchMode::kShared) { cache_.unfix(pid, page, mode); }

  // The measured phase begins: every dirty page to the file, the pool
  // emptied and shrunk to its fraction of the database, counters zeroed.
  void start_run() {
    const size_t pages = cache_.page_count();
    const auto wanted = static_cast<u64>(std::ceil(options_.fraction * static_cast<double>(pages)));
    BlockFile& file = *cache_.backing().file;
    file.resize(pages);       // exactly the database: a forked cell's file may hold pages an earlier cell added
    file.begin_bulk_write();  // the loaded database to the file in one go (not measured)
    cache_.restart(std::min<u64>(std::max<u64>(wanted, options_.min_frames), cache_.options().frames));
    file.end_bulk_write();
    run_pages_ = pages;
    baseline_ = {};
    baseline_ghost_hits_ = 0;  // restart() began a new policy
    warmup_references_ = 0;
    trace_.start();
  }

  // The pool's size for the next start_run (a loaded database run at
  // several fractions, one forked copy each).
  void set_fraction(double fraction) {
    DiskPoolOptions changed = options_;
    changed.fraction = fraction;
    options_ = checked(changed);
  }

  // The warm-up is over: counting starts again from here, pool kept.
  void start_measured() {
    baseline_ = cache_.stats();
    baseline_ghost_hits_ = ghost_hits();
    warmup_references_ = trace_.size();
  }

  // The measured phase ends (before the consistency check reads every
  // page): the reference string goes to its file; the counters as they are.
  DiskPoolStats end_run() {
    trace_.stop();
    if (const auto* ids = trace_.ids(); ids && !options_.trace_path.empty())
      cache::write_trace(options_.trace_path, *ids, cache::parse_trace_format(options_.trace_format), page_size());
    return stats();
  }

  DiskPoolStats stats() const {
    const CacheStats c = cache_.stats().since(baseline_);
    DiskPoolStats s;
    s.policy = Policy::kName;
    s.frames = cache_.frame_count();
    s.database_pages = run_pages_;
    s.hits = c.hits;
    s.misses = c.misses;
    s.reads = c.reads;
    s.writes = c.writes;
    s.cold_writes = c.cold_writes;
    s.hit_locks = c.hit_locks;
    s.hit_lock_waits = c.hit_lock_waits;
    s.hit_lock_wait_ns = c.hit_lock_wait_ns;
    s.ghost_hits = ghost_hits() - baseline_ghost_hits_;
    s.o_direct = cache_.backing().file->direct();
    s.warmup_references = warmup_references_;
    s.warmup_misses = baseline_.misses;
    return s;
  }
  const std::vector<u64>* trace() const { return trace_.ids(); }
  const DiskPoolOptions& options() const { return options_; }
  Cache& cache() { return cache_; }

  u32 page_size() const { return cache_.page_size(); }
  size_t page_count() const { return cache_.page_count(); }
  size_t bytes() const { return cache_.bytes(); }

 private:
  static const DiskPoolOptions& checked(const DiskPoolOptions& o) {
    if (!(o.fraction > 0 && o.fraction <= 1))
      throw std::invalid_argument("pool_fraction: must be in (0, 1], got " + number_text(o.fraction));
    return o;
  }
  static PageCacheOptions cache_options(u32 page_size, size_t capacity_pages) {
    check_page_size("page_size", page_size);
    PageCacheOptions o;
    o.page_size = page_size;
    o.frames = capacity_pages;
    o.key_limit = capacity_pages;
    return o;
  }

  // Misses the policy found in its ghost so far (2Q, S3-FIFO; 0 for others).
  // Read here rather than carried in CacheStats: that struct is every
  // stack's, and a field more there shifts E1's instruction counts. The
  // pool's policy is one, shared by its partitions.
  u64 ghost_hits() const { return cache::ghost_hits_of(cache_.policy()); }
  static_assert(!DiskPoolConfig<Policy>::kReplacementPerPartition);

  DiskPoolOptions options_;
  Cache cache_;
  size_t run_pages_ = 0;
  CacheStats baseline_;          // the counters when the measured phase began
  u64 baseline_ghost_hits_ = 0;  // ... and the policy's ghost hits
  u64 warmup_references_ = 0;    // of a recorded trace: the warm-up's, at its head
  Trace trace_;
};

}  // namespace dbrepro
