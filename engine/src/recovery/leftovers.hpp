#pragma once
// Whether a file that crashes and failed checkpoints leave behind
// (snapshot.tmp, log.pending, a log the chain no longer needs) is really
// the database's own, told by its first bytes: a file an open removes must
// begin as this database would have written it. A crash may cut a file at
// any byte after it was created, so a file shorter than what is compared
// must be a prefix of it (an empty one holds nothing to lose). A symlink,
// a directory or a device under one of these names is never ours.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstring>

#include "log/log_record.hpp"
#include "recovery/file_io.hpp"
#include "recovery/snapshot.hpp"

namespace dbrepro::recovery {

// The file's first bytes (at most `n`), or false where it is not a regular
// file that can be read (a symlink is not followed).
inline bool first_bytes(const io::FileAt& file, std::byte* out, size_t n, size_t& got) {
  const int fd = ::openat(file.dir, file.name.c_str(), O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return false;
  struct stat st{};
  const bool regular = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  const io::Transfer t = regular ? io::read_full(fd, out, n) : io::Transfer{};
  ::close(fd);
  got = t.done;
  return regular && t.error == 0;
}

// Whether the file's bytes are a prefix of `expected`, or begin with all of it.
inline bool begins_as(const io::FileAt& file, const void* expected, size_t n) {
  std::byte bytes[64];
  size_t got = 0;
  return n <= sizeof(bytes) && first_bytes(file, bytes, n, got) && std::memcmp(bytes, expected, got) == 0;
}

// A log of `tag` (log.pending's is {0, 0}: the engine writes it before the
// database has an id).
inline bool is_our_log(const io::FileAt& file, const LogFileTag& tag) {
  const LogFileHeader header = make_log_file_header(tag);
  return begins_as(file, &header, sizeof(header));
}

// The first log of a creation that a crash interrupted before its snapshot
// was in place: the database id is in no other file, so the header is
// checked for itself (magic, format, checksum, generation 1).
inline bool is_our_first_log(const io::FileAt& file) {
  std::byte bytes[sizeof(LogFileHeader)];
  size_t got = 0;
  if (!first_bytes(file, bytes, sizeof(bytes), got)) return false;
  if (got < sizeof(bytes)) {
    const LogFileHeader prefix = make_log_file_header(LogFileTag{});  // magic and format lead every header
    return std::memcmp(bytes, &prefix, std::min(got, offsetof(LogFileHeader, crc))) == 0;
  }
  LogFileHeader header;
  std::memcpy(&header, bytes, sizeof(header));
  return header.magic == kLogMagic && header.format == kLogFormat && log_file_header_valid(header) &&
         header.generation == 1;
}

// A snapshot being written: the magic, then (in its first block, after the
// block's length and checksum) the database id, where `database_id` is known.
inline bool is_our_snapshot_tmp(const io::FileAt& file, u64 database_id) {
  struct Start {
    u64 magic = kSnapshotMagic;
    u32 block_length = 0;
    u32 block_crc = 0;
    u64 database_id = 0;
  };
  std::byte bytes[sizeof(Start)];
  size_t got = 0;
  if (!first_bytes(file, bytes, sizeof(bytes), got)) return false;
  const Start expected;
  if (std::memcmp(bytes, &expected.magic, std::min(got, sizeof(u64))) != 0) return false;
  if (got < sizeof(Start) || database_id == 0) return true;
  u64 id;
  std::memcpy(&id, bytes + offsetof(Start, database_id), sizeof(id));
  return id == database_id;
}

}  // namespace dbrepro::recovery
