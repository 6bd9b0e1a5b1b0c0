#pragma once
// The in-memory log buffer: records are appended under its latch; the disk
// log policy decides what commit does with them.
//
//   FlushToFile: write everything appended since the last flush to the log
//                file and fsync it before commit returns (force-at-commit).
//   NeverFlush:  group commit with a buffer "large enough never to flush":
//                the buffer wraps around and nothing is written (E1's
//                "disk log" switch).
// A log file starts with a LogFileHeader (log_record.hpp), written and
// synced when the file is opened; only a flushing log checksums its records.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "io/fd.hpp"
#include "io/file_at.hpp"
#include "latch/latch.hpp"
#include "log/log_record.hpp"

namespace dbrepro {

struct NeverFlush {
  static constexpr const char* kName = "group commit, never flushed";
  static constexpr bool kFlushes = false;
  explicit NeverFlush(const io::FileAt& /*file*/) {}
  void write(const std::byte*, size_t) {}
  void sync() {}
  void open(const io::FileAt&, const LogFileTag&) {}
  u64 bytes_written() const { return 0; }
  u64 syncs() const { return 0; }
};

class FlushToFile {
 public:
  static constexpr const char* kName = "flush at commit";
  static constexpr bool kFlushes = true;
  explicit FlushToFile(const io::FileAt& file) { open(file, LogFileTag{}); }
  ~FlushToFile() {
    if (fd_ >= 0) ::close(fd_);
  }
  FlushToFile(const FlushToFile&) = delete;
  FlushToFile& operator=(const FlushToFile&) = delete;

  void write(const std::byte* data, size_t n) {
    const io::Transfer t = io::write_all(fd_, data, n);
    bytes_ += t.done;
    if (!t.whole()) throw io::io_error("log file '" + path_ + "': write", t);
  }
  void sync() {
    if (::fdatasync(fd_) != 0) throw std::runtime_error("log file '" + path_ + "': fdatasync: " + std::strerror(errno));
    ++syncs_;
  }
  u64 bytes_written() const { return bytes_; }
  u64 syncs() const { return syncs_; }

  // Continues in a new file holding only its header, synced (a checkpoint
  // started a new log); the previous file stays open if this one fails.
  // `file` is opened relative to its directory's descriptor (io/file_at.hpp).
  void open(const io::FileAt& file, const LogFileTag& tag) {
    const std::string& path = file.shown;
    const int fd = ::openat(file.dir, file.name.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) throw std::runtime_error("log file '" + path + "': " + std::strerror(errno));
    const LogFileHeader header = make_log_file_header(tag);
    auto fail = [&](const char* what) {
      const std::string error = std::strerror(errno);
      ::close(fd);
      throw std::runtime_error("log file '" + path + "': " + what + ": " + error);
    };
    if (const io::Transfer t = io::write_all(fd, &header, sizeof(header)); !t.whole()) {
      ::close(fd);
      throw io::io_error("log file '" + path + "': writing its header", t);
    }
    if (::fdatasync(fd) != 0) fail("fdatasync");
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
    path_ = path;
  }

 private:
  std::string path_;
  int fd_ = -1;
  u64 bytes_ = 0;
  u64 syncs_ = 0;
};

template <class DiskLog, class Latching>
class LogBuffer {
 public:
  static constexpr size_t kCapacity = 4 << 20;

  explicit LogBuffer(const io::FileAt& file) : disk_(file), buffer_(kCapacity) {}

  // Appends header + payload; returns the record's LSN. A log that goes to
  // disk sums the payload before taking the latch and the header (which
  // holds the LSN) under it.
  Lsn append(LogRecordHeader& header, const void* payload_a, size_t len_a, const void* payload_b = nullptr,
             size_t len_b = 0) {
    if constexpr (DiskLog::kFlushes) {
      header.payload_crc = crc32c_extend(len_a ? crc32c(payload_a, len_a) : 0, payload_b, len_b);
    }
    LatchGuard guard(latch_);
    header.lsn = next_lsn_;
    header.length = static_cast<u32>(len_a + len_b);
    if constexpr (DiskLog::kFlushes) header.header_crc = log_header_checksum(header);
    if constexpr (DiskLog::kFlushes) {
      // Many terminals may log more than the buffer holds between two
      // commits: write out (without a sync) what would be overwritten.
      if (next_lsn_ + sizeof(header) + len_a + len_b - written_lsn_ > kCapacity) {
        write_range(written_lsn_, next_lsn_);
        written_lsn_ = next_lsn_;
      }
    }
    put(&header, sizeof(header));
    if (len_a) put(payload_a, len_a);
    if (len_b) put(payload_b, len_b);
    return header.lsn;
  }

  // Makes every record up to the current end durable (FlushToFile) or
  // does nothing (NeverFlush).
  void flush() {
    if constexpr (!DiskLog::kFlushes) return;  // resolved at compile time
    LatchGuard guard(latch_);
    if (flushed_lsn_ == next_lsn_) return;
    write_range(written_lsn_, next_lsn_);
    disk_.sync();
    written_lsn_ = flushed_lsn_ = next_lsn_;
  }

  // Everything durable, then a new empty log file whose LSNs start at 0.
  void switch_file(const io::FileAt& file, const LogFileTag& tag) {
    flush();
    LatchGuard guard(latch_);
    disk_.open(file, tag);
    next_lsn_ = written_lsn_ = flushed_lsn_ = 0;
  }

  Lsn end_lsn() const { return next_lsn_; }
  const DiskLog& disk() const { return disk_; }

 private:
  void put(const void* data, size_t n) {
    const auto* bytes = static_cast<const std::byte*>(data);
    while (n > 0) {
      const size_t at = next_lsn_ % kCapacity;
      const size_t chunk = std::min(n, kCapacity - at);
      std::memcpy(buffer_.data() + at, bytes, chunk);
      bytes += chunk;
      n -= chunk;
      next_lsn_ += chunk;
    }
  }

  // The buffer holds the last kCapacity bytes; append writes out what it
  // would overwrite, so a range never spans more unless one record does.
  void write_range(Lsn from, Lsn to) {
    if (to - from > kCapacity) throw std::runtime_error("log buffer overrun: a log record larger than 4 MB");
    while (from < to) {
      const size_t at = from % kCapacity;
      const size_t chunk = std::min<size_t>(to - from, kCapacity - at);
      disk_.write(buffer_.data() + at, chunk);
      from += chunk;
    }
  }

  typename Latching::Mutex latch_;
  DiskLog disk_;
  std::vector<std::byte> buffer_;
  Lsn next_lsn_ = 0;
  Lsn written_lsn_ = 0;  // handed to the file
  Lsn flushed_lsn_ = 0;  // and synced
};

}  // namespace dbrepro
