#include "buffer/disk_file.hpp"

#include "common/temp_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace dbrepro {

namespace {

[[noreturn]] void fail(const std::string& what, const std::string& path) {
  throw std::runtime_error("disk pool: " + what + " '" + path + "': " + std::strerror(errno));
}

}  // namespace

DiskFile::DiskFile(const std::string& directory, u32 page_size, bool want_direct) : page_size_(page_size) {
  const std::string base = temp_base(directory);
  int fd = -1;
  path_ = make_temp_file(base, "dbrepro-db-", &fd);
  if (path_.empty()) throw std::invalid_argument("data_dir: cannot create a database file in '" + base + "'");
  if (want_direct) {
    // Re-open with O_DIRECT; tmpfs and some overlay filesystems refuse it.
    fd_ = ::open(path_.c_str(), O_RDWR | O_DIRECT);
    direct_ = fd_ >= 0;
  }
  if (fd_ < 0) {
    fd_ = ::dup(fd);
    if (fd_ < 0) fail("dup", path_);
  }
  ::close(fd);
}

DiskFile::~DiskFile() {
  if (bulk_fd_ >= 0) ::close(bulk_fd_);
  ::close(fd_);
  ::unlink(path_.c_str());
}

void DiskFile::read(PageId pid, std::byte* page) const {
  const off_t at = static_cast<off_t>(pid) * page_size_;
  size_t done = 0;
  while (done < page_size_) {
    const ssize_t n = ::pread(fd_, page + done, page_size_ - done, at + static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail("read page " + std::to_string(pid) + " of", path_);
    done += static_cast<size_t>(n);
  }
}

void DiskFile::write(PageId pid, const std::byte* page) const {
  const off_t at = static_cast<off_t>(pid) * page_size_;
  const int fd = bulk_fd_ >= 0 ? bulk_fd_ : fd_;
  size_t done = 0;
  while (done < page_size_) {
    const ssize_t n = ::pwrite(fd, page + done, page_size_ - done, at + static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail("write page " + std::to_string(pid) + " of", path_);
    done += static_cast<size_t>(n);
  }
}

void DiskFile::resize(u64 pages) const {
  if (::ftruncate(fd_, static_cast<off_t>(pages * page_size_)) != 0) fail("resize", path_);
}

void DiskFile::begin_bulk_write() {
  if (bulk_fd_ >= 0) return;
  bulk_fd_ = ::open(path_.c_str(), O_RDWR);
  if (bulk_fd_ < 0) fail("open", path_);
}

void DiskFile::end_bulk_write() {
  if (bulk_fd_ < 0) return;
  const int fd = bulk_fd_;
  bulk_fd_ = -1;
  const bool synced = ::fdatasync(fd) == 0;
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);  // clean now: the kernel lets them go
  ::close(fd);
  if (!synced) fail("sync", path_);
}

}  // namespace dbrepro
