#pragma once
// Write-ahead log records. An LSN is the byte offset of a record in the
// (conceptually endless) log; in a log file, record LSN n sits at file
// offset sizeof(LogFileHeader) + n.
//
// Format 2 (this one) adds what format 1 lacked to tell damage from a torn
// tail: a file header naming the database and the checkpoint generation the
// file continues, and per record a CRC-32C of its payload and one of its
// header (as PostgreSQL's WAL records carry xl_crc). Only a log that goes
// to disk (FlushToFile) computes them: a log that is never written leaves
// both at 0 and costs nothing more.
#include <cstddef>

#include "common/crc32c.hpp"
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
  u32 payload_crc;  // CRC-32C of the payload
  u32 header_crc;   // CRC-32C of every field above
};
static_assert(sizeof(LogRecordHeader) == 48);

inline u32 log_header_checksum(const LogRecordHeader& h) {
  return crc32c(&h, offsetof(LogRecordHeader, header_crc));
}

// ---- The log file's header.
inline constexpr u64 kLogMagic = 0x474F4C5242444244ull;  // "DDBRLOG" + 'G'
inline constexpr u32 kLogFormat = 2;

// Which database and which checkpoint generation a log file continues
// (0, 0: a scratch log that belongs to no database directory).
struct LogFileTag {
  u64 database_id = 0;
  u64 generation = 0;
};

struct LogFileHeader {
  u64 magic;
  u32 format;
  u32 crc;  // CRC-32C of the header with this field 0
  u64 database_id;
  u64 generation;
};
static_assert(sizeof(LogFileHeader) == 32);

inline LogFileHeader make_log_file_header(const LogFileTag& tag) {
  LogFileHeader h{kLogMagic, kLogFormat, 0, tag.database_id, tag.generation};
  h.crc = crc32c(&h, sizeof(h));
  return h;
}

inline bool log_file_header_valid(LogFileHeader h) {
  const u32 stored = h.crc;
  h.crc = 0;
  return stored == crc32c(&h, sizeof(h));
}

}  // namespace dbrepro
