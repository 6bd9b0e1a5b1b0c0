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
#include <new>
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

// What a directory entry that is not a regular file is, for messages.
inline const char* file_kind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISLNK(mode)) return "a symlink";
  return "not a regular file";
}

// A descriptor of the file, opened for reading without blocking (a FIFO put
// in a file's place would block open(2) forever) and refused unless it is a
// regular file; `size` gets its size.
inline int open_regular(const io::FileAt& file, off_t& size) {
  const int fd = ::openat(file.dir, file.name.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) throw io_error(file.shown, "open");
  struct stat st{};
  if (::fstat(fd, &st) != 0) {
    const std::runtime_error error = io_error(file.shown, "stat");
    ::close(fd);
    throw error;
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    throw Refused(file.shown + ": is " + file_kind(st.st_mode) +
                  ", not a regular file: refusing to read it as a database file");
  }
  size = st.st_size;
  return fd;
}

// The whole file (callers check first that it exists). One too large to hold
// in memory is a one-line error naming it, not a bare std::bad_alloc.
inline std::vector<std::byte> read_whole_file(const io::FileAt& file) {
  const std::string& path = file.shown;
  off_t size = 0;
  const int fd = open_regular(file, size);
  std::vector<std::byte> bytes;
  try {
    bytes.resize(static_cast<size_t>(size));
  } catch (const std::bad_alloc&) {
    ::close(fd);
    throw std::runtime_error(path + ": " + std::to_string(size) + " bytes, more than this process can hold in memory");
  }
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
