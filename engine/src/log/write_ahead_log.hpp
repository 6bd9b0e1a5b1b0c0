#pragma once
// The main log: prepares a log record for every change (the changed byte
// range of an updated row, before and after; a created row; an index entry
// inserted or erased; commit, abort) and appends it to the log buffer. It
// also keeps each transaction's undo list, which abort walks back, logging a
// compensation record per reverted change. NoLog is the removed form (E1's
// "main log" switch). Each record names the transaction's previous one
// (prev_lsn: the per-transaction chain that undo follows, as in Shore's
// xct_t). Page LSNs are log/page_lsn.hpp's.
#include <algorithm>
#include <cstring>
#include <string>

#include "log/log_buffer.hpp"
#include "log/page_lsn.hpp"
#include "storage/record_id.hpp"
#include "txn/transaction.hpp"

namespace dbrepro {

template <class DiskLog, class Latching>
class WriteAheadLog {
 public:
  static constexpr const char* kName = "write-ahead log";
  static constexpr bool kUndo = true;
  explicit WriteAheadLog(const io::FileAt& file) : buffer_(file) {}

  // Keeps the row's before-image in the transaction's undo list: abort puts
  // it back, and the update's log record is the changed range against it.
  void before_update(Transaction* txn, const std::byte* row, size_t length) { txn->undo.stage_image(row, length); }

  Lsn log_update(Transaction* txn, u16 table, RecordId rid, const std::byte* row, size_t length) {
    txn->undo.push_update(table, rid, length);
    return append_update(txn, table, rid, txn->undo.staged_image(), row, length);
  }

  Lsn log_create(Transaction* txn, u16 table, RecordId rid, const void* row, size_t length) {
    txn->undo.push_create(table, rid);
    LogRecordHeader h = header(txn, LogType::kCreate, table, rid);
    return chain(txn, buffer_.append(h, row, length));
  }

  Lsn log_index_insert(Transaction* txn, u16 table, u64 key, u64 value) {
    txn->undo.push_index_insert(table, key, value);
    return append_index(txn, LogType::kIndexInsert, table, key, value);
  }

  Lsn log_index_erase(Transaction* txn, u16 table, u64 key, u64 value) {
    txn->undo.push_index_erase(table, key, value);
    return append_index(txn, LogType::kIndexErase, table, key, value);
  }

  // The insert logged last found its key present: nothing to undo.
  void insert_failed(Transaction* txn) { txn->undo.pop(); }

  // ---- Compensation records: the changes of a rollback, logged (without
  // undo entries of their own) so that recovery repeats them.
  Lsn log_revert_update(Transaction* txn, u16 table, RecordId rid, const std::byte* current, const std::byte* image,
                        size_t length) {
    return append_update(txn, table, rid, current, image, length);
  }
  Lsn log_revert_create(Transaction* txn, u16 table, RecordId rid) {
    LogRecordHeader h = header(txn, LogType::kHeapErase, table, rid);
    return chain(txn, buffer_.append(h, nullptr, 0));
  }
  Lsn log_revert_index_insert(Transaction* txn, u16 table, u64 key, u64 value) {
    return append_index(txn, LogType::kIndexErase, table, key, value);
  }
  Lsn log_revert_index_erase(Transaction* txn, u16 table, u64 key, u64 value) {
    return append_index(txn, LogType::kIndexInsert, table, key, value);
  }

  // Calls revert(entry, before_image) for every change, newest first.
  template <class Revert>
  void rollback(Transaction* txn, Revert&& revert) {
    const auto& entries = txn->undo.entries();
    for (auto it = entries.rbegin(); it != entries.rend(); ++it) revert(*it, txn->undo.image(*it));
    txn->undo.clear();
  }

  // Commit record, then the disk log policy's flush (force-at-commit or not).
  void commit(Transaction* txn) {
    LogRecordHeader h = header(txn, LogType::kCommit, 0, RecordId{});
    chain(txn, buffer_.append(h, nullptr, 0));
    buffer_.flush();
  }

  // After the rollback's compensation records: the transaction is finished.
  void abort(Transaction* txn) {
    LogRecordHeader h = header(txn, LogType::kAbort, 0, RecordId{});
    chain(txn, buffer_.append(h, nullptr, 0));
  }

  // Checkpoints: everything durable, then a new (empty) log file; LSNs start
  // again at 0. Only while no transaction is active.
  void flush() { buffer_.flush(); }
  void switch_file(const io::FileAt& file, const LogFileTag& tag) { buffer_.switch_file(file, tag); }

  Lsn end_lsn() const { return buffer_.end_lsn(); }
  u64 bytes_written() const { return buffer_.disk().bytes_written(); }
  u64 syncs() const { return buffer_.disk().syncs(); }

 private:
  static u64 load_word(const std::byte* p) {
    u64 word;
    std::memcpy(&word, p, sizeof(word));
    return word;
  }
  static LogRecordHeader header(Transaction* txn, LogType type, u16 table, RecordId rid) {
    return LogRecordHeader{0, txn->last_lsn, txn->id, type, table, 0, rid.page, rid.slot, 0, 0, 0};
  }
  static Lsn chain(Transaction* txn, Lsn lsn) {
    if (txn->first_lsn == 0) txn->first_lsn = lsn + 1;  // +1: LSN 0 is a valid offset
    txn->last_lsn = lsn;
    return lsn;
  }

  // An update record: the changed byte range, before and after.
  Lsn append_update(Transaction* txn, u16 table, RecordId rid, const std::byte* before, const std::byte* row,
                    size_t length) {
    // The changed byte range: compare a word at a time, then bytes.
    size_t first = 0;
    while (first + 8 <= length && load_word(before + first) == load_word(row + first)) first += 8;
    while (first < length && before[first] == row[first]) ++first;
    size_t last = length;
    while (last >= first + 8 && load_word(before + last - 8) == load_word(row + last - 8)) last -= 8;
    while (last > first && before[last - 1] == row[last - 1]) --last;
    LogRecordHeader h = header(txn, LogType::kUpdate, table, rid);
    h.offset = static_cast<u16>(first);
    return chain(txn, buffer_.append(h, before + first, last - first, row + first, last - first));
  }

  Lsn append_index(Transaction* txn, LogType type, u16 table, u64 key, u64 value) {
    LogRecordHeader h = header(txn, type, table, RecordId{});
    const u64 entry[2] = {key, value};
    return chain(txn, buffer_.append(h, entry, sizeof(entry)));
  }

  LogBuffer<DiskLog, Latching> buffer_;
};

struct NoLog {
  static constexpr const char* kName = "no log";
  static constexpr bool kUndo = false;  // nothing to roll back with: single-threaded, two-phase transactions only
  explicit NoLog(const io::FileAt&) {}
  void before_update(Transaction*, const std::byte*, size_t) {}
  Lsn log_update(Transaction*, u16, RecordId, const std::byte*, size_t) { return 0; }
  Lsn log_create(Transaction*, u16, RecordId, const void*, size_t) { return 0; }
  Lsn log_index_insert(Transaction*, u16, u64, u64) { return 0; }
  Lsn log_index_erase(Transaction*, u16, u64, u64) { return 0; }
  void insert_failed(Transaction*) {}
  Lsn log_revert_update(Transaction*, u16, RecordId, const std::byte*, const std::byte*, size_t) { return 0; }
  Lsn log_revert_create(Transaction*, u16, RecordId) { return 0; }
  Lsn log_revert_index_insert(Transaction*, u16, u64, u64) { return 0; }
  Lsn log_revert_index_erase(Transaction*, u16, u64, u64) { return 0; }
  template <class Revert>
  void rollback(Transaction*, Revert&&) {}
  void commit(Transaction*) {}
  void abort(Transaction*) {}
  void flush() {}
  void switch_file(const io::FileAt&, const LogFileTag&) {}
  Lsn end_lsn() const { return 0; }
  u64 bytes_written() const { return 0; }
  u64 syncs() const { return 0; }
};

}  // namespace dbrepro
