#pragma once
// Write-ahead log records. An LSN is the byte offset of a record in the
// (conceptually endless) log.
#include "common/types.hpp"

namespace dbrepro {

using Lsn = u64;

// kHeapErase removes a created record again (the rollback of a create).
enum class LogType : u16 {
  kUpdate = 1,
  kCreate = 2,
  kIndexInsert = 3,
  kIndexErase = 4,
  kCommit = 5,
  kAbort = 6,
  kHeapErase = 7,
};

struct LogRecordHeader {
  Lsn lsn;
  Lsn prev_lsn;   // this transaction's previous record: the undo chain
  u64 txn_id;
  LogType type;
  u16 table;
  u32 length;     // bytes of payload after the header
  PageId page;
  u16 slot;
  u16 offset;     // first changed byte within the record (updates)
};
static_assert(sizeof(LogRecordHeader) == 40);

}  // namespace dbrepro
