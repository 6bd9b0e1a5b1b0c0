#pragma once
// Small POSIX file helpers for checkpoints and recovery: whole-file reads,
// buffered writes that end with fsync, an atomic rename made durable by
// syncing the directory. Files are io::FileAt (openat and its kin relative
// to a directory's descriptor; a plain path converts). Every error names
// the file.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/types.hpp"
#include "io/fd.hpp"
#include "io/file_at.hpp"

namespace dbrepro::recovery {

// A database directory that cannot be opened without losing or mixing up
// data (a damaged or missing file, a broken log chain, another process on
// it): refused, never repaired or re-created silently.
struct Refused : std::runtime_error {
  using std::runtime_error::runtime_error;
};

inline std::runtime_error io_error(const std::string& path, const char* what) {
  return std::runtime_error(path + ": " + what + ": " + std::strerror(errno));
}

inline bool file_exists(const io::FileAt& file) {
  struct stat st{};
  return ::fstatat(file.dir, file.name.c_str(), &st, 0) == 0;
}

// The whole file (callers check first that it exists).
inline std::vector<std::byte> read_whole_file(const io::FileAt& file) {
  const std::string& path = file.shown;
  std::vector<std::byte> bytes;
  const int fd = ::openat(file.dir, file.name.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw io_error(path, "open");
  struct stat st{};
  if (::fstat(fd, &st) != 0) {
    ::close(fd);
    throw io_error(path, "stat");
  }
  bytes.resize(static_cast<size_t>(st.st_size));
  const io::Transfer t = io::read_full(fd, bytes.data(), bytes.size());
  ::close(fd);
  if (!t.whole()) throw io::io_error(path + ": read", t);
  return bytes;
}

// Makes a rename or a new file in the directory `dir_fd` durable; `shown`
// names it in the message.
inline void sync_directory(int dir_fd, const std::string& shown) {
  if (::fsync(dir_fd) != 0) throw io_error(shown, "fsync directory");
}

// Buffered sequential writer; finish() writes the rest and fsyncs.
class FileWriter {
 public:
  explicit FileWriter(const io::FileAt& file) : path_(file.shown) {
    fd_ = ::openat(file.dir, file.name.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd_ < 0) throw io_error(path_, "open");
    buffer_.reserve(kBuffer);
  }
  ~FileWriter() {
    if (fd_ >= 0) ::close(fd_);
  }
  FileWriter(const FileWriter&) = delete;
  FileWriter& operator=(const FileWriter&) = delete;

  void put(const void* data, size_t n) {
    const auto* bytes = static_cast<const std::byte*>(data);
    if (buffer_.size() + n > kBuffer) drain();
    if (n > kBuffer) {
      write_all(bytes, n);
      return;
    }
    buffer_.insert(buffer_.end(), bytes, bytes + n);
  }
  template <class T>
  void put(const T& value) {
    put(&value, sizeof(value));
  }

  void finish() {
    drain();
    if (::fsync(fd_) != 0) throw io_error(path_, "fsync");
    ::close(fd_);
    fd_ = -1;
  }

 private:
  static constexpr size_t kBuffer = 1 << 20;
  void drain() {
    write_all(buffer_.data(), buffer_.size());
    buffer_.clear();
  }
  void write_all(const std::byte* data, size_t n) {
    if (const io::Transfer t = io::write_all(fd_, data, n); !t.whole()) throw io::io_error(path_ + ": write", t);
  }
  std::string path_;
  int fd_ = -1;
  std::vector<std::byte> buffer_;
};

// Reads fixed-size values from a byte image; throws naming the file when it
// ends early.
class ByteReader {
 public:
  ByteReader(const std::vector<std::byte>& bytes, std::string path) : bytes_(bytes), path_(std::move(path)) {}
  bool at_end() const { return at_ == bytes_.size(); }
  const std::byte* take(size_t n) {
    if (bytes_.size() - at_ < n) throw Refused(path_ + ": ends early (its contents stop at byte " + std::to_string(at_) + ")");
    const std::byte* p = bytes_.data() + at_;
    at_ += n;
    return p;
  }
  template <class T>
  T get() {
    T value;
    std::memcpy(&value, take(sizeof(T)), sizeof(T));
    return value;
  }

 private:
  const std::vector<std::byte>& bytes_;
  std::string path_;
  size_t at_ = 0;
};

}  // namespace dbrepro::recovery
