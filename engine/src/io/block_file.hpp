#pragma once
// A file of fixed-size blocks: block n lives at byte n * block_size, read and
// written whole with pread/pwrite, so many threads may share one descriptor.
// Two ways to have one:
//   a named file (MyISAM's .MYI index file, E2's key cache): created or opened
//     read-only, kept when this object goes;
//   temporary(dir): a fresh database file in `dir` (E5's disk pool, E3's
//     database), removed when this object goes, opened with O_DIRECT (no
//     kernel page cache, so a miss is a real device read) where the
//     filesystem allows it and the caller asks, which direct() reports.
#include <string>

#include "common/types.hpp"

namespace dbrepro {

class BlockFile {
 public:
  BlockFile() = default;
  BlockFile(const std::string& path, u32 block_size, bool create);
  static BlockFile temporary(const std::string& directory, u32 block_size, bool want_direct);
  ~BlockFile();
  BlockFile(const BlockFile&) = delete;
  BlockFile& operator=(const BlockFile&) = delete;
  BlockFile(BlockFile&& other) noexcept;
  BlockFile& operator=(BlockFile&& other) noexcept;

  // Throw std::runtime_error naming the block and the file.
  void read(u64 block, std::byte* out) const;
  void write(u64 block, const std::byte* in) const;

  u64 blocks() const;             // blocks currently in the file
  void resize(u64 blocks) const;  // exactly `blocks` blocks (cut or extended with zeros)

  // The write of a whole database before a run (setup, never measured):
  // between these two, writes go through the kernel's page cache, which
  // gathers them, where block-by-block O_DIRECT writes made most of a
  // 10-warehouse run's time. The end syncs the file and drops it from the
  // kernel's cache, so the measured phase's reads still come from the device.
  void begin_bulk_write();
  void end_bulk_write();

  u32 block_size() const { return block_size_; }
  int fd() const { return fd_; }
  bool direct() const { return direct_; }
  const std::string& path() const { return path_; }

 private:
  void close_all();

  std::string path_;
  u32 block_size_ = 0;
  int fd_ = -1;
  int bulk_fd_ = -1;       // the buffered descriptor between begin_bulk_write and end_bulk_write
  bool direct_ = false;
  bool temporary_ = false;  // removed with this object
};

}  // namespace dbrepro
