#pragma once
// Reads a log file back into records. The log is written sequentially and
// synced at every commit, so after a crash only its tail can be incomplete:
// reading stops at the first record that is cut off or does not start where
// the previous one ended (its LSN is its byte offset).
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

inline LogImage read_log(const std::string& path) {
  LogImage image;
  image.bytes = read_whole_file(path);
  const size_t size = image.bytes.size();
  size_t at = 0;
  while (size - at >= sizeof(LogRecordHeader)) {
    LogRecordHeader h;
    std::memcpy(&h, image.bytes.data() + at, sizeof(h));
    if (h.lsn != at || !known_type(h.type) || h.length > size - at - sizeof(h)) break;
    image.records.push_back(LogEntry{h, image.bytes.data() + at + sizeof(h)});
    at += sizeof(h) + h.length;
  }
  image.torn_bytes = size - at;
  return image;
}

}  // namespace dbrepro::recovery
