#pragma once
// A file written as checksummed blocks (the snapshot): after an 8-byte
// magic, blocks of up to 64 KiB, each (u32 length, u32 CRC-32C of the
// block's file offset and its bytes) and the bytes, as LevelDB/RocksDB
// frame their files in checksummed blocks. The offset in the sum catches a
// block that is intact but in the wrong place. Reading checks every block
// and returns their bytes joined; any mismatch, a block cut short or bytes
// after the last block is reported with the file and offset.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "common/crc32c.hpp"
#include "recovery/file_io.hpp"

namespace dbrepro::recovery {

inline constexpr size_t kCheckedBlockBytes = 64 << 10;

inline u32 block_checksum(u64 offset, const std::byte* data, size_t n) {
  return crc32c_extend(crc32c(&offset, sizeof(offset)), data, n);
}

class CheckedBlockWriter {
 public:
  CheckedBlockWriter(const io::FileAt& file, u64 magic) : out_(file) {
    out_.put(magic);
    offset_ = sizeof(magic);
    block_.reserve(kCheckedBlockBytes);
  }

  void put(const void* data, size_t n) {
    const auto* bytes = static_cast<const std::byte*>(data);
    while (n > 0) {
      const size_t chunk = std::min(n, kCheckedBlockBytes - block_.size());
      block_.insert(block_.end(), bytes, bytes + chunk);
      bytes += chunk;
      n -= chunk;
      if (block_.size() == kCheckedBlockBytes) emit();
    }
  }
  template <class T>
  void put(const T& value) {
    put(&value, sizeof(value));
  }

  // The last block, then fsync.
  void finish() {
    if (!block_.empty()) emit();
    out_.finish();
  }

 private:
  void emit() {
    const u32 length = static_cast<u32>(block_.size());
    out_.put(length);
    out_.put(block_checksum(offset_, block_.data(), block_.size()));
    out_.put(block_.data(), block_.size());
    offset_ += 2 * sizeof(u32) + block_.size();
    block_.clear();
  }

  FileWriter out_;
  std::vector<std::byte> block_;
  u64 offset_ = 0;
};

// The blocks' bytes joined, each checked; `magic_error` is called with the
// file's first 8 bytes when they are not `magic` (it throws).
template <class OnWrongMagic>
std::vector<std::byte> read_checked_blocks(const io::FileAt& file, u64 magic, OnWrongMagic&& on_wrong_magic) {
  const std::string& path = file.shown;
  std::vector<std::byte> bytes = read_whole_file(file);
  const size_t size = bytes.size();
  if (size < sizeof(u64)) throw Refused(path + ": " + std::to_string(size) + " bytes, too short to be a snapshot");
  u64 first;
  std::memcpy(&first, bytes.data(), sizeof(first));
  if (first != magic) on_wrong_magic(first);
  size_t at = sizeof(u64);
  size_t joined = 0;  // the blocks' bytes move to the front as they are checked
  while (at < size) {
    if (size - at < 2 * sizeof(u32))
      throw Refused(path + ": block at offset " + std::to_string(at) + " is cut short (the file ends at " +
                    std::to_string(size) + ")");
    u32 length, crc;
    std::memcpy(&length, bytes.data() + at, sizeof(length));
    std::memcpy(&crc, bytes.data() + at + sizeof(u32), sizeof(crc));
    const size_t data = at + 2 * sizeof(u32);
    if (length == 0 || length > kCheckedBlockBytes || length > size - data)
      throw Refused(path + ": block at offset " + std::to_string(at) + " is damaged or cut short (length " +
                    std::to_string(length) + ", the file ends at " + std::to_string(size) + ")");
    if (block_checksum(at, bytes.data() + data, length) != crc)
      throw Refused(path + ": block at offset " + std::to_string(at) + " is damaged (checksum mismatch)");
    std::memmove(bytes.data() + joined, bytes.data() + data, length);
    joined += length;
    at = data + length;
  }
  bytes.resize(joined);
  return bytes;
}

}  // namespace dbrepro::recovery
