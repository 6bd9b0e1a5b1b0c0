#pragma once
// The switchable components of an engine stack (E1, "OLTP through the
// looking glass"). Each is a compile-time policy; its removed form is a type
// whose operations are empty, so a stack without it spends zero instructions
// on it. A run picks one whole stack at its start (driver/tpcc/with_stack.hpp).
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "btree/key.hpp"
#include "buffer/buffer_pool.hpp"
#include "buffer/disk_pool.hpp"
#include "latch/latch.hpp"
#include "lock/lock_manager.hpp"
#include "log/write_ahead_log.hpp"
#include "storage/heap_file.hpp"
#include "storage/malloc_heap.hpp"
#include "storage/page_store.hpp"
#include "txn/sessions.hpp"

namespace dbrepro {

// Disk log: what commit does with the log buffer.
using DiskLogFlush = FlushToFile;
using DiskLogNone = NeverFlush;

// Main log: whether log records are prepared and appended at all.
struct MainLogOn {
  template <class DiskLog, class Latching>
  using type = WriteAheadLog<DiskLog, Latching>;
};
struct MainLogOff {
  template <class DiskLog, class Latching>
  using type = NoLog;
};

// Locking.
struct LockingOn {
  template <class Latching>
  using type = LockManager<Latching>;
};
struct LockingOff {
  template <class Latching>
  using type = NoLockManager;
};

// Directory lookups: a store's handle found through the volume's directory
// once per transaction and then in the transaction's own cache, as Shore's
// dir_m does (catalog/store_directory.hpp); or, removed, one cache for all
// transactions (each table keeps its handle).
struct DirectoryPerTransaction {
  static constexpr const char* kName = "directory per transaction";
  static constexpr bool kCached = false;
};
struct DirectoryCached {
  static constexpr const char* kName = "cached directory";
  static constexpr bool kCached = true;
};

// Page access: where pages and records live.
//  - Shore's (the full stack): pages through the buffer pool, which checks
//    page LSNs on fix and unfix (Lsn); records created through the space
//    manager on slotted pages (storage/space_manager.hpp).
//  - removed (E1's "page access" switch): B-tree nodes in a thin
//    page-to-frame map, records from malloc, one block each.
struct PageAccessBufferPool {
  template <class Latching, class Lsn>
  using type = BufferPool<Latching, Lsn>;
  template <class Pages, class Latching>
  using records = HeapFile<Pages, Latching, ShoreSpace>;
};
struct PageAccessDirect {
  template <class Latching, class Lsn>
  using type = DirectPages<Latching>;
  template <class Pages, class Latching>
  using records = MallocHeap<Latching>;
};
// E5: a database file behind a pool of a fraction of its size, with a
// replacement policy (cache/policies.hpp) and optional trace recording;
// records appended to slotted pages.
template <class Policy, class Trace = NoTrace>
struct PageAccessDisk {
  template <class Latching, class Lsn>
  using type = DiskPool<Latching, Policy, Trace>;
  template <class Pages, class Latching>
  using records = HeapFile<Pages, Latching>;
};

// A stack's page store; the disk pool also takes its options.
template <class Pages>
Pages make_pages(u32 page_size, size_t capacity_pages, const DiskPoolOptions& disk) {
  if constexpr (std::is_constructible_v<Pages, u32, size_t, const DiskPoolOptions&>)
    return Pages(page_size, capacity_pages, disk);
  else
    return Pages(page_size, capacity_pages);
}

// Sessions.
struct SessionsPerTxn {
  template <class Latching>
  using type = PerTxnSessions<Latching>;
};
struct SessionsSingle {
  template <class Latching>
  using type = SingleSession<Latching>;
};

// One engine stack: a choice for every component.
template <class KeyCompareT, class DiskLogT, class MainLogT, class LsnT, class LockingT, class LatchingT,
          class DirectoryT, class PageAccessT, class SessionsT>
struct Stack {
  using KeyCompare = KeyCompareT;
  using DiskLog = DiskLogT;
  using Latching = LatchingT;
  using Log = typename MainLogT::template type<DiskLogT, LatchingT>;
  using LsnPolicy = LsnT;
  using Locks = typename LockingT::template type<LatchingT>;
  using Directory = DirectoryT;
  using Pages = typename PageAccessT::template type<LatchingT, LsnT>;
  using Records = typename PageAccessT::template records<Pages, LatchingT>;
  using Sessions = typename SessionsT::template type<LatchingT>;

  // What each component is in this stack, for the raw-run record.
  static std::vector<std::pair<std::string, std::string>> describe() {
    return {{"key_compare", KeyCompare::kName}, {"disk_log", DiskLog::kName},  {"main_log", Log::kName},
            {"lsn", LsnPolicy::kName},          {"locking", Locks::kName},     {"latching", Latching::kName},
            {"directory", Directory::kName},    {"page_access", Pages::kName}, {"sessions", Sessions::kName}};
  }
};

// Several terminals at once: locks for isolation, latches for the shared
// structures, an undo log to roll back the victims of deadlocks.
template <class S>
inline constexpr bool kConcurrentStack =
    S::Latching::kEnabled && !std::is_same_v<typename S::Locks, NoLockManager> && S::Log::kUndo;

}  // namespace dbrepro
