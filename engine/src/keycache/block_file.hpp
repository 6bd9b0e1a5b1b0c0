#pragma once
// A file of fixed-size blocks (MyISAM's .MYI index file, or any other): block
// n lives at byte n * block_size. Reads and writes go through pread/pwrite, so
// many threads may share one descriptor.
#include <string>

#include "common/types.hpp"

namespace dbrepro::keycache {

class BlockFile {
 public:
  BlockFile() = default;
  BlockFile(const std::string& path, u32 block_size, bool create);
  ~BlockFile();
  BlockFile(const BlockFile&) = delete;
  BlockFile& operator=(const BlockFile&) = delete;
  BlockFile(BlockFile&& other) noexcept;
  BlockFile& operator=(BlockFile&& other) noexcept;

  void read(u64 block, std::byte* out) const;
  void write(u64 block, const std::byte* in);
  u64 blocks() const;  // blocks currently in the file
  u32 block_size() const { return block_size_; }
  int fd() const { return fd_; }

 private:
  int fd_ = -1;
  u32 block_size_ = 0;
};

}  // namespace dbrepro::keycache
