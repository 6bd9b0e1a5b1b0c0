#include "io/block_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <utility>

#include "common/temp_file.hpp"
#include "io/fd.hpp"

namespace dbrepro {

namespace {
[[noreturn]] void fail(const std::string& what, const std::string& path) {
  throw std::runtime_error(what + " '" + path + "': " + std::strerror(errno));
}
}  // namespace

BlockFile::BlockFile(const std::string& path, u32 block_size, bool create) : path_(path), block_size_(block_size) {
  fd_ = ::open(path.c_str(), create ? (O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC) : (O_RDONLY | O_CLOEXEC), 0644);
  if (fd_ < 0) fail("cannot open", path);
}

BlockFile BlockFile::temporary(const std::string& directory, u32 block_size, bool want_direct) {
  const std::string base = temp_base(directory);
  int fd = -1;
  BlockFile f;
  f.block_size_ = block_size;
  f.path_ = make_temp_file(base, "dbrepro-db-", &fd);
  if (f.path_.empty()) throw std::invalid_argument("data_dir: cannot create a database file in '" + base + "'");
  f.temporary_ = true;
  if (want_direct) {
    // Re-open with O_DIRECT; tmpfs and some overlay filesystems refuse it.
    f.fd_ = ::open(f.path_.c_str(), O_RDWR | O_DIRECT | O_CLOEXEC);
    f.direct_ = f.fd_ >= 0;
  }
  if (f.fd_ < 0) {
    f.fd_ = ::dup(fd);
    if (f.fd_ < 0) {
      ::close(fd);
      fail("dup", f.path_);
    }
  }
  ::close(fd);
  return f;
}

void BlockFile::close_all() {
  if (bulk_fd_ >= 0) ::close(bulk_fd_);
  if (fd_ >= 0) ::close(fd_);
  if (temporary_) ::unlink(path_.c_str());
  bulk_fd_ = fd_ = -1;
  temporary_ = false;
}

BlockFile::~BlockFile() { close_all(); }

BlockFile::BlockFile(BlockFile&& other) noexcept
    : path_(std::move(other.path_)),
      block_size_(other.block_size_),
      fd_(std::exchange(other.fd_, -1)),
      bulk_fd_(std::exchange(other.bulk_fd_, -1)),
      direct_(other.direct_),
      temporary_(std::exchange(other.temporary_, false)) {}

BlockFile& BlockFile::operator=(BlockFile&& other) noexcept {
  if (this != &other) {
    close_all();
    path_ = std::move(other.path_);
    block_size_ = other.block_size_;
    fd_ = std::exchange(other.fd_, -1);
    bulk_fd_ = std::exchange(other.bulk_fd_, -1);
    direct_ = other.direct_;
    temporary_ = std::exchange(other.temporary_, false);
  }
  return *this;
}

void BlockFile::read(u64 block, std::byte* out) const {
  const io::Transfer t = io::pread_full(fd_, out, block_size_, static_cast<off_t>(block * block_size_));
  if (!t.whole()) throw io::io_error("read block " + std::to_string(block) + " of '" + path_ + "'", t);
}

void BlockFile::write(u64 block, const std::byte* in) const {
  const int fd = bulk_fd_ >= 0 ? bulk_fd_ : fd_;
  const io::Transfer t = io::pwrite_all(fd, in, block_size_, static_cast<off_t>(block * block_size_));
  if (!t.whole()) throw io::io_error("write block " + std::to_string(block) + " of '" + path_ + "'", t);
}

u64 BlockFile::blocks() const {
  struct stat st {};
  if (::fstat(fd_, &st) != 0) fail("fstat", path_);
  return static_cast<u64>(st.st_size) / block_size_;
}

void BlockFile::resize(u64 blocks) const {
  if (::ftruncate(fd_, static_cast<off_t>(blocks * block_size_)) != 0) fail("resize", path_);
}

void BlockFile::begin_bulk_write() {
  if (bulk_fd_ >= 0) return;
  bulk_fd_ = ::open(path_.c_str(), O_RDWR | O_CLOEXEC);
  if (bulk_fd_ < 0) fail("open", path_);
}

void BlockFile::end_bulk_write() {
  if (bulk_fd_ < 0) return;
  const int fd = bulk_fd_;
  bulk_fd_ = -1;
  const bool synced = ::fdatasync(fd) == 0;
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);  // clean now: the kernel lets them go
  ::close(fd);
  if (!synced) fail("sync", path_);
}

}  // namespace dbrepro
