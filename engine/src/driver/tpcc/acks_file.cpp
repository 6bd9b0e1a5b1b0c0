#include "driver/tpcc/acks_file.hpp"

#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "io/fd.hpp"

namespace dbrepro::tpcc {

namespace {

std::invalid_argument acks_error(const std::string& path, const std::string& what) {
  return std::invalid_argument("acks file '" + path + "': " + what);
}

// A line as it may be shown in a one-line message: at most 40 characters,
// anything unprintable as \xNN.
std::string shown_line(const char* begin, const char* end) {
  std::string text;
  for (const char* p = begin; p < end && text.size() < 40; ++p) {
    const auto c = static_cast<unsigned char>(*p);
    if (c >= 0x20 && c < 0x7f && c != '\'') {
      text += static_cast<char>(c);
    } else {
      char hex[8];
      std::snprintf(hex, sizeof(hex), "\\x%02x", c);
      text += hex;
    }
  }
  return end - begin > 40 ? text + "..." : text;
}

// "N <digits>" or "P <digits>", the stamp within 64 bits.
bool parse_line(const char* begin, const char* end, Ack& ack) {
  if (end - begin < 3 || (begin[0] != 'N' && begin[0] != 'P') || begin[1] != ' ') return false;
  if (end - begin - 2 > 20) return false;
  u64 stamp = 0;
  for (const char* p = begin + 2; p < end; ++p) {
    if (*p < '0' || *p > '9') return false;
    const u64 digit = static_cast<u64>(*p - '0');
    if (stamp > (UINT64_MAX - digit) / 10) return false;
    stamp = stamp * 10 + digit;
  }
  ack = Ack{begin[0], stamp};
  return true;
}

struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

bool same_file(const struct stat& a, const struct stat& b) { return a.st_dev == b.st_dev && a.st_ino == b.st_ino; }

}  // namespace

std::vector<Ack> read_acks(const std::string& path) {
  Fd in{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (in.fd < 0) throw acks_error(path, std::string("cannot be read: ") + std::strerror(errno));
  struct stat st{};
  if (::fstat(in.fd, &st) != 0) throw acks_error(path, std::string("stat: ") + std::strerror(errno));
  if (S_ISDIR(st.st_mode)) throw acks_error(path, "is a directory, not a file of acknowledgements");
  if (!S_ISREG(st.st_mode)) throw acks_error(path, "is not a regular file");
  std::string bytes;
  char chunk[1 << 16];
  for (;;) {
    const io::Transfer t = io::read_full(in.fd, chunk, sizeof(chunk));
    if (t.error != 0) throw acks_error(path, std::string("read: ") + std::strerror(t.error));
    bytes.append(chunk, t.done);
    if (!t.whole()) break;  // the end of the file
  }
  std::vector<Ack> acks;
  acks.reserve(bytes.size() / 20);
  const char* p = bytes.data();
  const char* const end = p + bytes.size();
  for (u64 line = 1; p < end; ++line) {
    const char* newline = static_cast<const char*>(std::memchr(p, '\n', static_cast<size_t>(end - p)));
    const char* stop = newline ? newline : end;
    Ack ack;
    if (!parse_line(p, stop, ack))
      throw acks_error(path, "line " + std::to_string(line) + ": expected 'N STAMP' or 'P STAMP' (a new order's or a "
                                 "payment's commit stamp), got '" + shown_line(p, stop) + "'");
    if (!newline)
      throw acks_error(path, "line " + std::to_string(line) +
                                 ": cut short (no newline ends it; every acknowledgement is written as a whole line)");
    acks.push_back(ack);
    p = newline + 1;
  }
  return acks;
}

AcksWriter::AcksWriter(const std::string& path, int database_dir_fd, const std::string& database_dir) {
  if (path.empty()) return;
  // The file a symlink names is the one written.
  std::string target = path;
  struct stat link{};
  if (::lstat(path.c_str(), &link) == 0 && S_ISLNK(link.st_mode)) {
    char resolved[PATH_MAX];
    if (::realpath(path.c_str(), resolved) == nullptr)
      throw acks_error(path, std::string("a symlink that cannot be resolved: ") + std::strerror(errno));
    target = resolved;
  }
  const std::filesystem::path file(target);
  if (!file.has_filename()) throw acks_error(path, "names a directory, not a file");
  const std::string parent = file.has_parent_path() ? file.parent_path().string() : ".";
  Fd folder{::open(parent.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC)};
  if (folder.fd < 0) throw acks_error(path, "its directory '" + parent + "' cannot be opened: " + std::strerror(errno));

  // Neither its directory nor any above it may be the database's.
  struct stat database{};
  if (::fstat(database_dir_fd, &database) != 0)
    throw std::runtime_error("database directory '" + database_dir + "': stat: " + std::strerror(errno));
  Fd walk{::openat(folder.fd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC)};
  struct stat here{};
  while (walk.fd >= 0 && ::fstat(walk.fd, &here) == 0) {
    if (same_file(here, database))
      throw acks_error(path, "inside the database directory '" + database_dir +
                                 "' (it would be written among, and removed with, the database's files): give a path "
                                 "outside it");
    Fd up{::openat(walk.fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC)};
    struct stat above{};
    if (up.fd < 0 || ::fstat(up.fd, &above) != 0 || same_file(above, here)) break;  // the root
    std::swap(walk.fd, up.fd);
  }

  const std::string name = file.filename().string();
  struct stat existing{};
  if (::fstatat(folder.fd, name.c_str(), &existing, 0) == 0 && !S_ISREG(existing.st_mode))
    throw acks_error(path, S_ISDIR(existing.st_mode) ? "is a directory, not a file" : "is not a regular file");
  fd_ = ::openat(folder.fd, name.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd_ < 0) throw acks_error(path, std::string("cannot be opened for appending: ") + std::strerror(errno));
}

AcksWriter::~AcksWriter() {
  if (fd_ >= 0) ::close(fd_);
}

void AcksWriter::ack(TxnType type, u64 stamp) {
  if (fd_ < 0) return;
  char line[48];
  const int n = std::snprintf(line, sizeof(line), "%c %llu\n", type == TxnType::kNewOrder ? 'N' : 'P',
                              static_cast<unsigned long long>(stamp));
  if (::write(fd_, line, static_cast<size_t>(n)) != n) throw std::runtime_error("acks file: write failed");
}

}  // namespace dbrepro::tpcc
