#pragma once
// The engine: rows in slotted pages of heap files, keys in B+trees, both
// found through the catalog, with the components of a stack (logging,
// locking, latching, page access, sessions) around every access. Its
// Table<Row> is the storage adapter the TPC-C transactions are written
// against (lookup1, update1, insert, scan, erase), so every stack runs the
// very same transaction code.
//
// Each engine call of a transaction is one phase function (begin, lookup,
// pin/unpin, update, create, insert, commit), out of line so that callgrind
// attributes instructions to it by name and a Meter can bracket it.
//
// Concurrency: the Engine is the database and also the transaction context
// of a single-threaded run. Each further terminal opens a Session on it, its
// own transaction context; a Table is bound to the context it was opened
// from (Engine or Session), so the phase functions read the transaction
// through the table and nothing is looked up per thread. Only stacks with
// locking, latching and an undo log (kConcurrent) may have sessions.
#include <chrono>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "btree/btree.hpp"
#include "catalog/catalog.hpp"
#include "catalog/store_directory.hpp"
#include "io/file_at.hpp"
#include "measure/meter.hpp"
#include "stack/components.hpp"
#include "storage/record_guard.hpp"
#include "tpcc/schema.hpp"

namespace dbrepro {

struct EngineOptions {
  u32 page_size = 8192;
  size_t capacity_pages = 1 << 16;  // buffer pool frames reserved (address space only)
  io::FileAt log_path;              // the log file of a flushing disk log (in a directory held open, or a path)
  DiskPoolOptions disk;             // the disk-backed pool's (E5 stacks only)
};

template <class S, class Meter = NullMeter>
class Engine {
 public:
  using StackType = S;
  using KeyCompare = typename S::KeyCompare;
  using Latching = typename S::Latching;
  using Pages = typename S::Pages;
  using Heap = typename S::Records;
  using Index = BTree<KeyCompare, Pages, typename S::LsnPolicy>;
  using Directory = Catalog<Heap, Index>;
  using Entry = typename Directory::Entry;
  // The volume's directory of store handles; absent (no page, no code) where
  // the stack caches every handle once for all transactions.
  struct NoStores {
    explicit NoStores(Pages&) {}
  };
  using Stores = std::conditional_t<S::Directory::kCached, NoStores, StoreDirectory<Entry, Index, Latching>>;

  static constexpr bool kConcurrent = kConcurrentStack<S>;

  explicit Engine(const EngineOptions& options, Meter meter = Meter{})
      : pages_(make_pages<Pages>(options.page_size, options.capacity_pages, options.disk)),
        stores_(pages_),
        log_(options.log_path),
        meter_(std::move(meter)) {}
  explicit Engine(u32 page_size) : Engine(with_page_size(page_size)) {}
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  Pages& pages() { return pages_; }
  size_t database_pages() const { return pages_.page_count(); }
  // The pages, and record bytes kept outside them (malloc'd records).
  size_t database_bytes() const {
    size_t total = pages_.bytes();
    catalog_.for_each([&](const Entry& entry) {
      if (entry.heap) total += entry.heap->bytes_outside_pages();
    });
    return total;
  }
  Directory& catalog() { return catalog_; }
  Meter& meter() { return meter_; }
  const typename S::Log& log() const { return log_; }
  typename S::Log& log() { return log_; }
  // The directory entry of a catalog id (ids are 1, 2, ... in creation order).
  Entry& entry(u16 id) { return *entries_by_id_.at(id); }

  // Creates the storage for Row and registers it in the catalog.
  template <class Row>
  Entry& create_table() {
    std::unique_ptr<Heap> heap;
    std::unique_ptr<Index> index;
    if constexpr (!tpcc::kIsIndexOnly<Row>) heap = std::make_unique<Heap>(pages_);
    if constexpr (!tpcc::kIsHeapOnly<Row>) index = std::make_unique<Index>(pages_, Row::kLayout);
    u32 row_size = 0;
    if constexpr (!tpcc::kIsIndexOnly<Row>) row_size = sizeof(Row);
    Entry& entry = catalog_.create(Row::kName, row_size, std::move(heap), std::move(index));
    if constexpr (!S::Directory::kCached) stores_.add(entry);
    if (entries_by_id_.size() <= entry.id) entries_by_id_.resize(entry.id + 1, nullptr);
    entries_by_id_[entry.id] = &entry;
    return entry;
  }

  class Session;

  // ---- Transaction boundaries -------------------------------------------

  [[gnu::noinline]] void begin() {
    PhaseScope<Meter> scope(meter_, Phase::kBegin);
    txn_ = sessions_.begin();
  }

  [[gnu::noinline]] void commit() {
    PhaseScope<Meter> scope(meter_, Phase::kCommit);
    finish_commit(txn_);
  }

  // Rolls back every change (the undo log's before-images, each reversal
  // logged), then the locks go and the log notes the abort. A two-phase
  // transaction's user abort has nothing to roll back.
  [[gnu::noinline]] void abort() {
    PhaseScope<Meter> scope(meter_, Phase::kCommit);
    finish_abort(txn_);
  }

  // Whether a transaction is open on the engine's own context.
  bool in_transaction() const { return txn_ != nullptr; }

  template <class Row>
  class Table;

 private:
  static EngineOptions with_page_size(u32 page_size) {
    EngineOptions options;
    options.page_size = page_size;
    return options;
  }

  static constexpr u64 kRecordLockSpace = u64{1} << 63;  // record-id locks apart from key locks

  static LockMode intention(LockMode mode) { return mode == LockMode::kX ? LockMode::kIX : LockMode::kIS; }

  [[gnu::always_inline]] inline void finish_commit(Transaction*& txn) {
    log_.commit(txn);
    locks_.release_all(txn);
    if constexpr (!S::Directory::kCached) Stores::end(txn);
    sessions_.end(txn);
    txn = nullptr;
  }

  [[gnu::always_inline]] inline void finish_abort(Transaction*& txn) {
    log_.rollback(txn, [&](const UndoEntry& e, const std::byte* image) { revert(txn, e, image); });
    log_.abort(txn);
    locks_.release_all(txn);
    if constexpr (!S::Directory::kCached) Stores::end(txn);
    sessions_.end(txn);
    txn = nullptr;
  }

  // Reverts one change of txn (still holding its locks), logging the reversal.
  void revert(Transaction* txn, const UndoEntry& e, const std::byte* image) {
    Entry& entry = *entries_by_id_[e.table];
    switch (e.kind) {
      case UndoKind::kUpdate: {
        const RecordGuard<std::remove_reference_t<decltype(*entry.heap)>, LatchMode::kExclusive> pinned(*entry.heap,
                                                                                                          e.rid);
        const Lsn lsn = log_.log_revert_update(txn, e.table, e.rid, pinned.record(), image, e.length);
        std::memcpy(pinned.record(), image, e.length);
        S::LsnPolicy::stamp(pinned.page(), lsn);
        break;
      }
      case UndoKind::kCreate:
        log_.log_revert_create(txn, e.table, e.rid);
        entry.heap->erase(e.rid);
        break;
      case UndoKind::kIndexInsert:
        entry.index->erase(e.key, log_.log_revert_index_insert(txn, e.table, e.key, e.value));
        break;
      case UndoKind::kIndexErase:
        entry.index->insert(e.key, e.value, log_.log_revert_index_erase(txn, e.table, e.key, e.value));
        break;
    }
  }

  // The store handle of a table for the transaction: through the volume's
  // directory, once per transaction (store_directory.hpp), or (E1's "dir
  // lookup" switch) the handle the table keeps, one cache for all.
  // Always inline: the same code path whatever else the stack compiles in, so
  // instruction counts of neighbouring steps differ only by what was removed.
  template <class Row>
  [[gnu::always_inline]] inline Entry& resolve(Table<Row>& table, Transaction* txn) {
    if constexpr (S::Directory::kCached) {
      return *table.cached_;
    } else {
      return stores_.access(txn, table.id_);
    }
  }

  // ---- Phase functions ---------------------------------------------------

  // B+tree lookup of a key, with its intention and key locks.
  template <class Row>
  [[gnu::noinline]] bool phase_lookup(Table<Row>& table, PackedKey key, LockMode mode, u64* value) {
    PhaseScope<Meter> scope(meter_, Phase::kLookup);
    Transaction* txn = *table.txn_;
    Entry& entry = resolve(table, txn);
    locks_.lock(txn, LockId{entry.id, LockId::kTableLock}, intention(mode));
    locks_.lock(txn, LockId{entry.id, key}, mode);
    return entry.index->lookup(key, value);
  }

  // Pinning a record and unpinning it are two phases E1 counts apart (the
  // study's "pin/unpin" bar), so the table's calls pair them by hand rather
  // than through a RecordGuard (storage/record_guard.hpp).
  template <class Row>
  [[gnu::noinline]] PinnedRecord phase_pin(Table<Row>& table, RecordId rid, LatchMode mode) {
    PhaseScope<Meter> scope(meter_, Phase::kPin);
    return resolve(table, *table.txn_).heap->fix(rid, mode);
  }

  template <class Row>
  [[gnu::noinline]] void phase_unpin(Table<Row>& table, RecordId rid, const PinnedRecord& pinned, LatchMode mode) {
    PhaseScope<Meter> scope(meter_, Phase::kPin);
    resolve(table, *table.txn_).heap->unfix(rid, pinned, mode);
  }

  // In-place update of a pinned record: before-image, change, log record,
  // page LSN.
  template <class Row, class Fn>
  [[gnu::noinline]] void phase_update(Table<Row>& table, RecordId rid, const PinnedRecord& pinned, Fn& change) {
    PhaseScope<Meter> scope(meter_, Phase::kUpdate);
    Transaction* txn = *table.txn_;
    log_.before_update(txn, pinned.record, sizeof(Row));
    change(*reinterpret_cast<Row*>(pinned.record));
    const Lsn lsn = log_.log_update(txn, table.id_, rid, pinned.record, sizeof(Row));
    S::LsnPolicy::stamp(pinned.page, lsn);
  }

  // Record creation: its table lock, a slot in the heap file, its log
  // record, its record lock (a new record id: never held by another).
  template <class Row>
  [[gnu::noinline]] RecordId phase_create(Table<Row>& table, const Row& row) {
    PhaseScope<Meter> scope(meter_, Phase::kCreate);
    Transaction* txn = *table.txn_;
    Entry& entry = resolve(table, txn);
    locks_.lock(txn, LockId{entry.id, LockId::kTableLock}, LockMode::kIX);  // may wait: before the change
    const RecordId rid = entry.heap->create(&row, sizeof(Row), [&](RecordId created, std::byte* page) {
      const Lsn lsn = log_.log_create(txn, entry.id, created, &row, sizeof(Row));
      S::LsnPolicy::stamp(page, lsn);
    });
    locks_.lock(txn, LockId{entry.id, kRecordLockSpace | rid.pack()}, LockMode::kX);
    return rid;
  }

  // B+tree insert of a key, with its locks and log record (logged first).
  template <class Row>
  [[gnu::noinline]] bool phase_insert(Table<Row>& table, PackedKey key, u64 value) {
    PhaseScope<Meter> scope(meter_, Phase::kInsert);
    Transaction* txn = *table.txn_;
    Entry& entry = resolve(table, txn);
    locks_.lock(txn, LockId{entry.id, LockId::kTableLock}, LockMode::kIX);
    locks_.lock(txn, LockId{entry.id, key}, LockMode::kX);
    const Lsn lsn = log_.log_index_insert(txn, entry.id, key, value);
    if (entry.index->insert(key, value, lsn)) return true;
    log_.insert_failed(txn);  // the key was there: nothing of ours to undo
    return false;
  }

  // B+tree erase of a key: the entry (key and value) is logged first, for
  // undo and for recovery; the key's X lock keeps it stable in between.
  template <class Row>
  [[gnu::noinline]] bool phase_erase(Table<Row>& table, PackedKey key) {
    PhaseScope<Meter> scope(meter_, Phase::kInsert);
    Transaction* txn = *table.txn_;
    Entry& entry = resolve(table, txn);
    locks_.lock(txn, LockId{entry.id, LockId::kTableLock}, LockMode::kIX);
    locks_.lock(txn, LockId{entry.id, key}, LockMode::kX);
    u64 value;
    if (!entry.index->lookup(key, &value)) return false;
    const Lsn lsn = log_.log_index_erase(txn, entry.id, key, value);
    return entry.index->erase(key, lsn);
  }

  // A range scan locks the whole table (index) in shared mode.
  template <class Row>
  [[gnu::noinline]] typename Index::Cursor phase_open_scan(Table<Row>& table, PackedKey from) {
    PhaseScope<Meter> scope(meter_, Phase::kLookup);
    Transaction* txn = *table.txn_;
    Entry& entry = resolve(table, txn);
    locks_.lock(txn, LockId{entry.id, LockId::kTableLock}, LockMode::kS);
    return entry.index->seek(from);
  }

  Pages pages_;
  Directory catalog_;  // by name: where tables are created and opened
  [[no_unique_address]] Stores stores_;  // by store number: where transactions find them
  typename S::Log log_;
  typename S::Locks locks_;
  typename S::Sessions sessions_;
  Meter meter_;
  Transaction* txn_ = nullptr;
  std::vector<Entry*> entries_by_id_;
};

// A further terminal's transaction context on an engine: the same
// begin/commit/abort and Table<Row> as the engine's own, for the tables the
// engine already created.
template <class S, class Meter>
class Engine<S, Meter>::Session {
 public:
  template <class Row>
  using Table = typename Engine::template Table<Row>;

  explicit Session(Engine& engine) : engine_(&engine) {
    static_assert(kConcurrent, "sessions need a stack with locking, latching and an undo log");
  }
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  ~Session() {
    if (txn_) abort();
  }

  Engine& engine() { return *engine_; }
  void begin() { txn_ = engine_->sessions_.begin(); }
  void commit() { engine_->finish_commit(txn_); }
  void abort() { engine_->finish_abort(txn_); }
  bool in_transaction() const { return txn_ != nullptr; }
  Transaction** transaction_slot() { return &txn_; }  // what its tables read the transaction from

 private:
  Engine* engine_;
  Transaction* txn_ = nullptr;
};

// The storage adapter for one table.
template <class S, class Meter>
template <class Row>
class Engine<S, Meter>::Table {
 public:
  using Key = typename Row::Key;

  // Creates the table; its transactions are the engine's own.
  explicit Table(Engine& engine)
      : engine_(&engine), txn_(&engine.txn_), cached_(&engine.template create_table<Row>()), id_(cached_->id) {}
  // Opens the table the engine created, for a session's transactions.
  explicit Table(Session& session)
      : engine_(&session.engine()), txn_(session.transaction_slot()), cached_(&engine_->catalog_.lookup(Row::kName)),
        id_(cached_->id) {}

  // Creates the record and adds its key to the index; false if the key exists
  // (the record then stays unreferenced: dead space).
  bool insert(const Key& key, const Row& row) {
    static_assert(!tpcc::kIsIndexOnly<Row> && !tpcc::kIsHeapOnly<Row>);
    const RecordId rid = engine_->phase_create(*this, row);
    return engine_->phase_insert(*this, Row::pack(key), rid.pack());
  }

  // For tables without a key (HISTORY): record creation only.
  void insert(const Row& row) {
    static_assert(tpcc::kIsHeapOnly<Row>);
    engine_->phase_create(*this, row);
  }

  // For index-only entries (secondary indexes): the key is the row.
  bool insert(const Key& key) {
    static_assert(tpcc::kIsIndexOnly<Row>);
    return engine_->phase_insert(*this, Row::pack(key), 0);
  }

  // Calls fn(const Row&) on the row with this key; false if there is none.
  template <class Fn>
  bool lookup1(const Key& key, Fn&& fn) {
    u64 value;
    if (!engine_->phase_lookup(*this, Row::pack(key), LockMode::kS, &value)) return false;
    const RecordId rid = RecordId::unpack(value);
    const PinnedRecord pinned = engine_->phase_pin(*this, rid, LatchMode::kShared);
    fn(*reinterpret_cast<const Row*>(pinned.record));
    engine_->phase_unpin(*this, rid, pinned, LatchMode::kShared);
    return true;
  }

  // Calls fn(Row&) on the row with this key, in place; false if there is none.
  template <class Fn>
  bool update1(const Key& key, Fn&& fn) {
    u64 value;
    if (!engine_->phase_lookup(*this, Row::pack(key), LockMode::kX, &value)) return false;
    const RecordId rid = RecordId::unpack(value);
    const PinnedRecord pinned = engine_->phase_pin(*this, rid, LatchMode::kExclusive);
    engine_->phase_update(*this, rid, pinned, fn);
    engine_->phase_unpin(*this, rid, pinned, LatchMode::kExclusive);
    return true;
  }

  // Ascending from the first key >= from: fn(const Key&, const Row&) for
  // tables, fn(const Key&) for index-only entries; stops when fn returns false.
  template <class Fn>
  void scan(const Key& from, Fn&& fn) {
    for (auto cursor = engine_->phase_open_scan(*this, Row::pack(from)); cursor.valid(); cursor.next()) {
      const Key key = Row::unpack(cursor.key());
      if constexpr (tpcc::kIsIndexOnly<Row>) {
        if (!fn(key)) return;
      } else {
        const RecordId rid = RecordId::unpack(cursor.value());
        const PinnedRecord pinned = engine_->phase_pin(*this, rid, LatchMode::kShared);
        const bool more = fn(key, *reinterpret_cast<const Row*>(pinned.record));
        engine_->phase_unpin(*this, rid, pinned, LatchMode::kShared);
        if (!more) return;
      }
    }
  }

  // Removes the key from the index (the record's space is not reclaimed).
  bool erase(const Key& key) { return engine_->phase_erase(*this, Row::pack(key)); }

  // Bulk load outside any transaction: storage only, no locks, no log.
  void load(const Key& key, const Row& row) {
    const RecordId rid = cached_->heap->create(&row, sizeof(Row));
    cached_->index->insert(Row::pack(key), rid.pack());
  }
  void load(const Row& row) { cached_->heap->create(&row, sizeof(Row)); }
  void load(const Key& key) { cached_->index->insert(Row::pack(key), 0); }

  u64 size() const { return cached_->index ? cached_->index->size() : cached_->heap->record_count(); }

 private:
  friend class Engine;
  Engine* engine_;
  Transaction** txn_;  // the transaction of the context the table was opened from
  Entry* cached_;  // the directory entry, used directly only by a cached-directory stack
  u16 id_;
};

// The bare paged engine: storage only, every removable component removed.
template <class KeyCompare>
using BareStack = Stack<KeyCompare, NeverFlush, MainLogOff, NoLsn, LockingOff, NoLatching, DirectoryCached,
                        PageAccessDirect, SessionsSingle>;
template <class KeyCompare>
using PagedEngine = Engine<BareStack<KeyCompare>>;

}  // namespace dbrepro
