#pragma once
// A lock manager in the classic shape: a hash table of lock heads, one per
// locked object, each with a queue of requests; hierarchical modes (IS, IX,
// S, X) so that a record lock is preceded by an intention lock on its table;
// strict two-phase locking (everything is released at commit). A request
// that conflicts waits. Deadlocks: before each wait the waiter records whom
// it waits for in a waits-for graph and aborts itself (LockTimeout) if that
// closes a cycle; a wait that outlasts the timeout is also taken for a
// deadlock (the backstop). Both happen only on a conflict: an uncontended
// lock never touches the graph.
//
// Lock heads and requests come from the manager's free lists, one per
// kind, refilled a large chunk at a time (as Shore's lock manager took them
// from per-class free lists, w_fastnew, rather than from malloc): the
// requests a commit frees are the next transactions', so a warm lock
// manager allocates nothing.
//
// NoLocking is the removed form: every call is an empty inline function.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "latch/latch.hpp"
#include "txn/transaction.hpp"

namespace dbrepro {

enum class LockMode : u8 { kIS = 0, kIX = 1, kS = 2, kX = 3 };

// Compatibility matrix of the hierarchical modes.
inline bool compatible(LockMode held, LockMode wanted) {
  static constexpr bool kMatrix[4][4] = {
      /* IS */ {true, true, true, false},
      /* IX */ {true, true, false, false},
      /* S  */ {true, false, true, false},
      /* X  */ {false, false, false, false},
  };
  return kMatrix[static_cast<int>(held)][static_cast<int>(wanted)];
}

// The weakest mode at least as strong as both.
inline LockMode supremum(LockMode a, LockMode b) {
  if (a == b) return a;
  if (a == LockMode::kX || b == LockMode::kX) return LockMode::kX;
  if ((a == LockMode::kS && b == LockMode::kIX) || (a == LockMode::kIX && b == LockMode::kS)) return LockMode::kX;
  return a > b ? a : b;
}

struct LockId {
  u32 table;  // catalog id of the table
  u64 key;    // packed key, or kTableLock for the table itself
  static constexpr u64 kTableLock = ~u64{0};
  friend bool operator==(const LockId&, const LockId&) = default;
};

// Thrown when a lock wait times out (presumed deadlock): the caller aborts.
struct LockTimeout : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct LockHead;

struct LockRequest {
  Transaction* txn;
  LockHead* head;
  LockMode mode;
  bool granted;
  LockRequest* next;  // in the head's queue
};

struct LockHead {
  LockId id;
  LockRequest* queue = nullptr;
  LockHead* next = nullptr;  // in the bucket's chain
};

template <class Latching>
class LockManager {
 public:
  static constexpr const char* kName = "lock manager";

  explicit LockManager(size_t buckets = 1 << 16, std::chrono::milliseconds timeout = std::chrono::milliseconds(200))
      : buckets_(buckets), mask_(buckets - 1), timeout_(timeout) {
    if (buckets == 0 || (buckets & (buckets - 1)) != 0)
      throw std::invalid_argument("lock manager: bucket count must be a power of two");
  }

  void lock(Transaction* txn, LockId id, LockMode mode) {
    Bucket& bucket = buckets_[hash(id) & mask_];
    std::unique_lock<typename Latching::Mutex> guard(bucket.latch);
    LockHead* head = find_or_create(bucket, id);

    // Already holding it: upgrade in place if the new mode is stronger.
    for (LockRequest* r = head->queue; r; r = r->next) {
      if (r->txn != txn) continue;
      const LockMode wanted = supremum(r->mode, mode);
      if (wanted == r->mode) return;
      if (!grantable(head, txn, wanted)) wait(bucket, guard, head, txn, wanted);
      r->mode = wanted;
      return;
    }

    if (!grantable(head, txn, mode)) wait(bucket, guard, head, txn, mode);
    LockRequest* request = requests_.take();
    *request = LockRequest{txn, head, mode, true, head->queue};
    head->queue = request;
    txn->locks.push_back(request);
  }

  // Strict 2PL: all of a transaction's locks go at commit (or abort).
  void release_all(Transaction* txn) {
    LockRequest* freed_requests = nullptr;  // chained through next, returned to the pool at once
    LockHead* freed_heads = nullptr;
    for (LockRequest* request : txn->locks) {
      LockHead* head = request->head;
      Bucket& bucket = buckets_[hash(head->id) & mask_];
      std::lock_guard<typename Latching::Mutex> guard(bucket.latch);
      for (LockRequest** link = &head->queue; *link; link = &(*link)->next) {
        if (*link == request) {
          *link = request->next;
          break;
        }
      }
      request->next = freed_requests;
      freed_requests = request;
      // A head nobody holds goes back to the free list, unless a waiter of
      // this bucket may still be looking at it.
      if (head->queue == nullptr && bucket.waiters == 0) {
        unlink(bucket, head);
        head->next = freed_heads;
        freed_heads = head;
      }
      if (bucket.waiters > 0) bucket.wakeup.notify_all();
    }
    txn->locks.clear();
    if (freed_requests != nullptr) requests_.give_back(freed_requests);
    if (freed_heads != nullptr) heads_.give_back(freed_heads);
    // Edges to this transaction are stale now; a waiter re-records its own
    // when it wakes. After every bucket: a waiter that saw txn as a holder
    // recorded its edge inside that bucket's latch, before txn got it.
    if constexpr (Latching::kEnabled) {
      if (waiting_.load(std::memory_order_acquire) > 0) forget_holder(txn);
    }
  }

 private:
  struct Bucket {
    typename Latching::Mutex latch;
    LockHead* chain = nullptr;
    std::condition_variable_any wakeup;
    int waiters = 0;
  };

  // A free list of T (chained through T::next) under its own latch, refilled
  // kChunk at a time; the chunks live as long as the manager.
  template <class T>
  class FreeList {
   public:
    static constexpr size_t kChunk = 1024;
    T* take() {
      LatchGuard guard(latch_);
      if (free_ == nullptr) refill();
      T* item = free_;
      free_ = item->next;
      return item;
    }
    // Returns a chain of items (linked through next) in one go.
    void give_back(T* chain) {
      T* last = chain;
      while (last->next != nullptr) last = last->next;
      LatchGuard guard(latch_);
      last->next = free_;
      free_ = chain;
    }

   private:
    void refill() {
      chunks_.push_back(std::make_unique<T[]>(kChunk));
      T* chunk = chunks_.back().get();
      for (size_t i = 0; i < kChunk; ++i) chunk[i].next = i + 1 < kChunk ? &chunk[i + 1] : free_;
      free_ = chunk;
    }
    typename Latching::Mutex latch_;
    T* free_ = nullptr;
    std::vector<std::unique_ptr<T[]>> chunks_;
  };

  static u64 hash(const LockId& id) {
    u64 h = id.key * 0x9E3779B97F4A7C15ull ^ (u64{id.table} << 32 | id.table);
    return h ^ (h >> 29);
  }

  LockHead* find_or_create(Bucket& bucket, const LockId& id) {
    for (LockHead* h = bucket.chain; h; h = h->next)
      if (h->id == id) return h;
    LockHead* head = heads_.take();
    *head = LockHead{id, nullptr, bucket.chain};
    bucket.chain = head;
    return head;
  }

  // An empty head leaves the bucket's chain (the caller frees it).
  static void unlink(Bucket& bucket, LockHead* head) {
    for (LockHead** link = &bucket.chain; *link; link = &(*link)->next) {
      if (*link == head) {
        *link = head->next;
        break;
      }
    }
    head->next = nullptr;
  }

  // Compatible with every request of other transactions.
  static bool grantable(const LockHead* head, const Transaction* txn, LockMode mode) {
    for (const LockRequest* r = head->queue; r; r = r->next)
      if (r->txn != txn && !compatible(r->mode, mode)) return false;
    return true;
  }

  void wait(Bucket& bucket, std::unique_lock<typename Latching::Mutex>& guard, LockHead* head, Transaction* txn,
            LockMode mode) {
    if constexpr (!Latching::kEnabled) {
      // Without latches only one thread may use the engine: a conflict can
      // only be a deadlock with itself, which strict 2PL rules out.
      throw LockTimeout("lock conflict in a stack without latching (single-threaded only)");
    } else {
      const auto deadline = std::chrono::steady_clock::now() + timeout_;
      ++bucket.waiters;
      while (!grantable(head, txn, mode)) {
        if (waits_into_cycle(head, txn, mode)) {
          --bucket.waiters;
          throw LockTimeout("deadlock: waits-for cycle");
        }
        if (bucket.wakeup.wait_until(guard, deadline) == std::cv_status::timeout && !grantable(head, txn, mode)) {
          --bucket.waiters;
          stop_waiting(txn);
          throw LockTimeout("lock wait timed out (presumed deadlock)");
        }
      }
      --bucket.waiters;
      stop_waiting(txn);
    }
  }

  // Records txn -> the holders it conflicts with (the caller holds head's
  // bucket latch; graph_mutex_ is only ever taken inside a bucket latch) and
  // whether one of them waits, transitively, for txn. Edges of others may be
  // stale (a holder has moved on): at worst a needless abort, retried.
  bool waits_into_cycle(const LockHead* head, const Transaction* txn, LockMode mode) {
    std::vector<const Transaction*> holders;
    for (const LockRequest* r = head->queue; r; r = r->next)
      if (r->txn != txn && !compatible(r->mode, mode)) holders.push_back(r->txn);
    std::lock_guard<std::mutex> graph(graph_mutex_);
    std::vector<const Transaction*> stack = holders;
    std::unordered_set<const Transaction*> seen;
    while (!stack.empty()) {
      const Transaction* t = stack.back();
      stack.pop_back();
      if (t == txn) {
        waits_for_.erase(txn);
        waiting_.store(waits_for_.size(), std::memory_order_release);
        return true;
      }
      if (!seen.insert(t).second) continue;
      const auto it = waits_for_.find(t);
      if (it != waits_for_.end()) stack.insert(stack.end(), it->second.begin(), it->second.end());
    }
    waits_for_[txn] = std::move(holders);
    waiting_.store(waits_for_.size(), std::memory_order_release);
    return false;
  }

  void stop_waiting(const Transaction* txn) {
    std::lock_guard<std::mutex> graph(graph_mutex_);
    waits_for_.erase(txn);
    waiting_.store(waits_for_.size(), std::memory_order_release);
  }

  void forget_holder(const Transaction* txn) {
    std::lock_guard<std::mutex> graph(graph_mutex_);
    for (auto& [waiter, holders] : waits_for_) std::erase(holders, txn);
  }

  std::vector<Bucket> buckets_;
  FreeList<LockRequest> requests_;
  FreeList<LockHead> heads_;
  u64 mask_;
  std::chrono::milliseconds timeout_;
  std::mutex graph_mutex_;
  std::unordered_map<const Transaction*, std::vector<const Transaction*>> waits_for_;  // waiters only
  std::atomic<size_t> waiting_{0};  // waits_for_.size(): commit looks at the graph only when someone waits
};

struct NoLockManager {
  static constexpr const char* kName = "no locking";
  void lock(Transaction*, LockId, LockMode) {}
  void release_all(Transaction*) {}
};

}  // namespace dbrepro
