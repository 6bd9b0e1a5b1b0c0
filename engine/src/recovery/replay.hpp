#pragma once
// Recovery's two passes over the log written after the snapshot:
//  redo: repeat history, every record of every transaction in log order
//        (commits, rollbacks already done and their compensation records,
//        and the changes of transactions the crash interrupted);
//  undo: revert the changes of every transaction that has neither a commit
//        nor an abort record, newest first (an interrupted rollback's
//        compensations are reverted with the rest, which nets out).
// Records name rows by the record ids of the run that wrote them; RidMap
// translates. An index record that changed nothing at redo (the key was
// already there or already gone) changed nothing at run time either, as the
// log order is the order under the key's lock; its undo is skipped.
#include <algorithm>
#include <cstring>
#include <type_traits>
#include <unordered_set>
#include <vector>

#include "latch/latch.hpp"
#include "log/log_record.hpp"
#include "recovery/log_reader.hpp"
#include "recovery/rid_map.hpp"
#include "storage/record_guard.hpp"
#include "storage/record_id.hpp"

namespace dbrepro::recovery {

struct ReplayStats {
  u64 records = 0;
  u64 committed = 0;     // transactions with a commit record
  u64 aborted = 0;       // rolled back before the crash
  u64 undone = 0;        // interrupted by the crash and rolled back now
  u64 undo_records = 0;
  u64 torn_bytes = 0;
};

template <class E>
class Replay {
 public:
  Replay(E& engine, RidMap& rids) : engine_(engine), rids_(rids) {}

  ReplayStats run(const LogImage& log) {
    ReplayStats stats;
    stats.records = log.records.size();
    stats.torn_bytes = log.torn_bytes;
    std::vector<bool> applied(log.records.size(), true);
    std::unordered_set<u64> finished, seen;
    for (size_t i = 0; i < log.records.size(); ++i) {
      const LogEntry& r = log.records[i];
      seen.insert(r.header.txn_id);
      if (r.header.type == LogType::kCommit) {
        finished.insert(r.header.txn_id);
        ++stats.committed;
      } else if (r.header.type == LogType::kAbort) {
        finished.insert(r.header.txn_id);
        ++stats.aborted;
      } else {
        applied[i] = redo(r);
      }
    }
    for (u64 txn : seen)
      if (!finished.contains(txn)) ++stats.undone;
    for (size_t i = log.records.size(); i-- > 0;) {
      const LogEntry& r = log.records[i];
      if (finished.contains(r.header.txn_id) || !applied[i]) continue;
      undo(r);
      ++stats.undo_records;
    }
    return stats;
  }

 private:
  auto& entry(const LogEntry& r) { return engine_.entry(r.header.table); }
  RecordId rid_of(const LogEntry& r) {
    return RecordId::unpack(rids_.at(r.header.table, RecordId{r.header.page, r.header.slot}.pack()));
  }
  static u64 word(const LogEntry& r, int i) {
    u64 v;
    std::memcpy(&v, r.payload + i * sizeof(u64), sizeof(v));
    return v;
  }
  // An index value is a record id where the table has rows.
  u64 index_value(const LogEntry& r) {
    return entry(r).heap ? rids_.at(r.header.table, word(r, 1)) : word(r, 1);
  }

  // Writes half of an update record's payload (0: before, 1: after) into the row.
  void patch(const LogEntry& r, int half) {
    const u32 range = r.header.length / 2;
    auto& heap = *entry(r).heap;
    const RecordId rid = rid_of(r);
    const RecordGuard<std::remove_reference_t<decltype(heap)>, LatchMode::kExclusive> pinned(heap, rid);
    std::memcpy(pinned.record() + r.header.offset, r.payload + half * range, range);
  }

  bool redo(const LogEntry& r) {
    switch (r.header.type) {
      case LogType::kUpdate:
        patch(r, 1);
        return true;
      case LogType::kCreate: {
        const RecordId rid = entry(r).heap->create(r.payload, static_cast<u16>(r.header.length));
        rids_.set(r.header.table, RecordId{r.header.page, r.header.slot}.pack(), rid.pack());
        return true;
      }
      case LogType::kHeapErase:
        entry(r).heap->erase(rid_of(r));
        return true;
      case LogType::kIndexInsert:
        return entry(r).index->insert(word(r, 0), index_value(r));
      case LogType::kIndexErase:
        return entry(r).index->erase(word(r, 0));
      default:
        return true;
    }
  }

  void undo(const LogEntry& r) {
    switch (r.header.type) {
      case LogType::kUpdate:
        patch(r, 0);
        break;
      case LogType::kCreate:
        entry(r).heap->erase(rid_of(r));
        break;
      case LogType::kHeapErase:
        entry(r).heap->restore(rid_of(r));
        break;
      case LogType::kIndexInsert:
        entry(r).index->erase(word(r, 0));
        break;
      case LogType::kIndexErase:
        entry(r).index->insert(word(r, 0), index_value(r));
        break;
      default:
        break;
    }
  }

  E& engine_;
  RidMap& rids_;
};

}  // namespace dbrepro::recovery
