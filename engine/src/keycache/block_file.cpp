#include "keycache/block_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <utility>

namespace dbrepro::keycache {

namespace {
[[noreturn]] void fail(const std::string& what) { throw std::runtime_error(what + ": " + std::strerror(errno)); }
}  // namespace

BlockFile::BlockFile(const std::string& path, u32 block_size, bool create) : block_size_(block_size) {
  fd_ = ::open(path.c_str(), create ? (O_RDWR | O_CREAT | O_TRUNC) : O_RDONLY, 0644);
  if (fd_ < 0) fail("cannot open " + path);
}

BlockFile::~BlockFile() {
  if (fd_ >= 0) ::close(fd_);
}

BlockFile::BlockFile(BlockFile&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), block_size_(other.block_size_) {}

BlockFile& BlockFile::operator=(BlockFile&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    block_size_ = other.block_size_;
  }
  return *this;
}

void BlockFile::read(u64 block, std::byte* out) const {
  const ssize_t got = ::pread(fd_, out, block_size_, static_cast<off_t>(block * block_size_));
  if (got != static_cast<ssize_t>(block_size_)) fail("short read of block " + std::to_string(block));
}

void BlockFile::write(u64 block, const std::byte* in) {
  const ssize_t put = ::pwrite(fd_, in, block_size_, static_cast<off_t>(block * block_size_));
  if (put != static_cast<ssize_t>(block_size_)) fail("short write of block " + std::to_string(block));
}

u64 BlockFile::blocks() const {
  struct stat st {};
  if (::fstat(fd_, &st) != 0) fail("fstat");
  return static_cast<u64>(st.st_size) / block_size_;
}

}  // namespace dbrepro::keycache
