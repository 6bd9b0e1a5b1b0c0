#pragma once
// Reads a log file back into records, telling a torn tail from damage.
//
// The log is written sequentially and synced at every commit, so a crash
// can leave only its end incomplete: the file stops inside its last record
// (a header cut short, or a header whose length runs past the end), or,
// after a power loss, the last record's final sectors never reached the
// disk (zeros up to the end of the file). That tail is ignored, as before.
// Anything else is damage: a record whose header or payload checksum does
// not match (log_record.hpp) while more of the log follows it, a bad header
// with a valid record after it, or a bad last record that is not zeros.
// Damage is refused (Refused) naming the file and the byte offset: reading
// on past it, or stopping there, would both lose committed work silently.
#include <string>
#include <vector>

#include "log/log_record.hpp"
#include "recovery/file_io.hpp"

namespace dbrepro::recovery {

struct LogEntry {
  LogRecordHeader header;
  const std::byte* payload;  // into LogImage::bytes
};

struct LogImage {
  std::vector<std::byte> bytes;
  std::vector<LogEntry> records;
  u64 torn_bytes = 0;  // ignored at the end: a record the crash cut off
};

inline bool known_type(LogType type) {
  return type >= LogType::kUpdate && type <= LogType::kHeapErase;
}

namespace log_reader_detail {

inline constexpr size_t kBase = sizeof(LogFileHeader);  // file offset of LSN 0
inline constexpr size_t kSector = 512;

inline bool header_valid(const LogRecordHeader& h, size_t at) {
  return h.header_crc == log_header_checksum(h) && h.lsn == at - kBase && known_type(h.type);
}

// Whether a valid record header starts anywhere after `from`.
inline bool valid_header_after(const std::vector<std::byte>& bytes, size_t from) {
  for (size_t p = from + 1; p + sizeof(LogRecordHeader) <= bytes.size(); ++p) {
    u64 lsn;
    std::memcpy(&lsn, bytes.data() + p, sizeof(lsn));
    if (lsn != p - kBase) continue;
    LogRecordHeader h;
    std::memcpy(&h, bytes.data() + p, sizeof(h));
    if (header_valid(h, p)) return true;
  }
  return false;
}

// Whether the file ends in whole sectors of zeros that start inside the
// record at `from`: what a power loss leaves of sectors never written.
inline bool ends_in_unwritten_sectors(const std::vector<std::byte>& bytes, size_t from) {
  size_t zeros = bytes.size();
  while (zeros > from && bytes[zeros - 1] == std::byte{0}) --zeros;
  const size_t sector = (zeros + kSector - 1) / kSector * kSector;
  return sector < bytes.size();
}

}  // namespace log_reader_detail

// `expected`: the database and generation the snapshot says this log continues.
inline LogImage read_log(const io::FileAt& log, const LogFileTag& expected) {
  using namespace log_reader_detail;
  const std::string& path = log.shown;
  LogImage image;
  image.bytes = read_whole_file(log);
  const std::vector<std::byte>& bytes = image.bytes;
  const size_t size = bytes.size();
  if (size < kBase) {
    throw Refused(path + ": " + std::to_string(size) +
                  " bytes, shorter than a log file's header (a log of format 1, before checksums, or a damaged "
                  "file)");
  }
  LogFileHeader file;
  std::memcpy(&file, bytes.data(), sizeof(file));
  if (file.magic != kLogMagic) {
    throw Refused(path + (file.magic == 0 ? ": a log of format 1 (before checksums); this build reads format " +
                                                std::to_string(kLogFormat) +
                                                " only: open the database with the build that wrote it"
                                          : std::string(": not a dbrepro log file (wrong magic at offset 0)")));
  }
  if (!log_file_header_valid(file)) throw Refused(path + ": its header (offset 0) is damaged (checksum mismatch)");
  if (file.format != kLogFormat)
    throw Refused(path + ": a log of format " + std::to_string(file.format) + "; this build reads format " +
                  std::to_string(kLogFormat) + " only");
  if (file.database_id != expected.database_id || file.generation != expected.generation) {
    throw Refused(path + ": belongs to database " + std::to_string(file.database_id) + " generation " +
                  std::to_string(file.generation) + ", but the snapshot continues in database " +
                  std::to_string(expected.database_id) + " generation " + std::to_string(expected.generation) +
                  ": the log chain is broken");
  }

  auto damaged = [&](size_t at, const std::string& what) {
    return Refused(path + ": record at offset " + std::to_string(at) + " (LSN " + std::to_string(at - kBase) +
                   ") is damaged (" + what + "); " + std::to_string(size - at) +
                   " bytes of log from there on cannot be trusted, so recovery stops rather than lose them");
  };
  size_t at = kBase;
  while (at < size) {
    const size_t rest = size - at;
    if (rest < sizeof(LogRecordHeader)) break;  // a header cut short
    LogRecordHeader h;
    std::memcpy(&h, bytes.data() + at, sizeof(h));
    if (!header_valid(h, at)) {
      if (valid_header_after(bytes, at)) throw damaged(at, "header checksum mismatch, and valid records follow");
      if (ends_in_unwritten_sectors(bytes, at)) break;
      throw damaged(at, "header checksum mismatch");
    }
    if (h.length > rest - sizeof(h)) break;  // the crash cut the record off
    const std::byte* payload = bytes.data() + at + sizeof(h);
    if (crc32c(payload, h.length) != h.payload_crc) {
      const bool last = h.length == rest - sizeof(h);
      if (last && ends_in_unwritten_sectors(bytes, at)) break;
      throw damaged(at, last ? "payload checksum mismatch" : "payload checksum mismatch, and more log follows");
    }
    image.records.push_back(LogEntry{h, payload});
    at += sizeof(h) + h.length;
  }
  image.torn_bytes = size - at;
  return image;
}

}  // namespace dbrepro::recovery
