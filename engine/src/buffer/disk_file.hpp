#pragma once
// The database file of the disk-backed pool: a fresh file in a directory,
// removed when the pool goes. Pages are read and written whole with
// pread/pwrite; O_DIRECT (no kernel page cache, so a miss is a real device
// read) where the filesystem allows it, which the run record reports.
#include <string>

#include "common/types.hpp"

namespace dbrepro {

class DiskFile {
 public:
  DiskFile(const std::string& directory, u32 page_size, bool want_direct);
  ~DiskFile();
  DiskFile(const DiskFile&) = delete;
  DiskFile& operator=(const DiskFile&) = delete;

  void read(PageId pid, std::byte* page) const;
  void write(PageId pid, const std::byte* page) const;

  // The file holds exactly `pages` pages (cut or extended with zeros).
  void resize(u64 pages) const;

  // The write of the whole database before a run (setup, never measured):
  // between these two, writes go through the kernel's page cache, which
  // gathers them, where page-by-page O_DIRECT writes made most of a
  // 10-warehouse run's time. The end syncs the file and drops it from the
  // kernel's cache, so the measured phase's reads still come from the device.
  void begin_bulk_write();
  void end_bulk_write();

  bool direct() const { return direct_; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  u32 page_size_;
  int fd_ = -1;
  int bulk_fd_ = -1;  // the buffered descriptor between begin_bulk_write and end_bulk_write
  bool direct_ = false;
};

}  // namespace dbrepro
