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

#include "io/errno_text.hpp"
#include "io/fd.hpp"
#include "io/printable.hpp"
#include "recovery/file_io.hpp"

namespace dbrepro::tpcc {

namespace {

constexpr const char* kHeaderStart = "# run ";
constexpr const char* kHeaderMiddle = " of database ";
constexpr size_t kLongestLine = 64;  // a header is 43 bytes, an acknowledgement at most 22

std::invalid_argument acks_error(const std::string& path, const std::string& what) {
  return std::invalid_argument("acks file '" + io::printable(path) + "': " + what);
}

// A line as it may be shown between quotes in a one-line message: at most
// 40 characters, anything but printable ASCII as \xNN.
std::string shown_line(const std::string& line) {
  const std::string shown = io::printable(std::string_view(line).substr(0, 40), true);
  return line.size() > 40 ? shown + "..." : shown;
}

// Decimal digits only (at most `max_digits`, no sign, no space), within 64 bits.
bool parse_decimal(std::string_view text, size_t max_digits, u64& value) {
  if (text.empty() || text.size() > max_digits) return false;
  value = 0;
  for (const char c : text) {
    if (c < '0' || c > '9') return false;
    const u64 digit = static_cast<u64>(c - '0');
    if (value > (UINT64_MAX - digit) / 10) return false;
    value = value * 10 + digit;
  }
  return true;
}

// "N <digits>" or "P <digits>".
bool parse_ack(std::string_view line, Ack& ack) {
  if (line.size() < 3 || (line[0] != 'N' && line[0] != 'P') || line[1] != ' ') return false;
  ack.type = line[0];
  return parse_decimal(line.substr(2), 20, ack.stamp);
}

// acks_header_line's format, exactly.
bool parse_header(std::string_view line, AcksHeader& header) {
  const std::string_view start = kHeaderStart, middle = kHeaderMiddle;
  if (line.substr(0, start.size()) != start) return false;
  const size_t run_end = line.find(' ', start.size());
  if (run_end == std::string_view::npos) return false;
  const std::string_view run = line.substr(start.size(), run_end - start.size());
  if (run.size() > 1 && run[0] == '0') return false;
  if (!parse_decimal(run, 8, header.run_id) || header.run_id > run_of_stamp(UINT64_MAX)) return false;
  if (line.substr(run_end, middle.size()) != middle) return false;
  const std::string_view id = line.substr(run_end + middle.size());
  if (id.size() != 16 || id.find_first_not_of("0123456789abcdef") != std::string_view::npos) return false;
  header.database_id = std::strtoull(std::string(id).c_str(), nullptr, 16);
  return true;
}

// Reads the first `size` bytes of `fd` line by line; calls on_line(number,
// line, false) for each line a newline ends, and on_line(number, first
// bytes, true) for one longer than kLongestLine (no valid line is: it must
// throw); returns the last line if no newline ends it (`rest`), and its number.
template <class OnLine>
void for_each_line(const std::string& path, int fd, u64 size, OnLine&& on_line, std::string& rest, u64& number) {
  char chunk[1 << 16];
  std::string line;
  number = 1;
  for (u64 offset = 0; offset < size;) {
    const size_t want = static_cast<size_t>(std::min<u64>(sizeof(chunk), size - offset));
    const io::Transfer t = io::pread_full(fd, chunk, want, static_cast<off_t>(offset));
    if (t.error != 0) throw acks_error(path, "read: " + io::errno_text(t.error));
    if (!t.whole())
      throw acks_error(path, "became shorter while it was read (" + std::to_string(offset + t.done) + " of " +
                                 std::to_string(size) + " bytes)");
    for (size_t i = 0; i < want; ++i) {
      if (chunk[i] == '\n') {
        on_line(number++, line, false);
        line.clear();
      } else if (line.size() < kLongestLine) {
        line += chunk[i];
      } else {
        on_line(number, line, true);  // no line this long is valid: refused now, not after reading it all
      }
    }
    offset += want;
  }
  rest = line;
}

std::string line_error(u64 number, const std::string& what) { return "line " + std::to_string(number) + ": " + what; }

// One file's lines read and checked: on_run / on_ack as AcksFile::for_each.
u64 scan_acks(const std::string& path, int fd, u64 size, const std::function<void(const AcksHeader&)>& on_run,
              const std::function<void(const Ack&)>& on_ack) {
  AcksHeader run;
  bool in_run = false;
  u64 acks = 0;
  auto check = [&](u64 number, const std::string& line, bool too_long) {
    AcksHeader header;
    Ack ack;
    if (!too_long && parse_header(line, header)) {
      run = header;
      in_run = true;
      if (on_run) on_run(run);
      return;
    }
    if (too_long || !parse_ack(line, ack))
      throw acks_error(path, line_error(number, "expected 'N STAMP' or 'P STAMP' (a new order's or a payment's "
                                                "commit stamp) or a run's header, got '" +
                                                    shown_line(line) + "'"));
    if (!in_run)
      throw acks_error(path, line_error(number, "an acknowledgement before any run's header ('# run N of database "
                                                "ID'; files written before issue 56 have none)"));
    if (run_of_stamp(ack.stamp) != run.run_id)
      throw acks_error(path, line_error(number, "stamp " + std::to_string(ack.stamp) + " is run " +
                                                    std::to_string(run_of_stamp(ack.stamp)) + "'s, under run " +
                                                    std::to_string(run.run_id) + "'s header"));
    ++acks;
    if (on_ack) on_ack(ack);
  };
  std::string rest;
  u64 last = 0;
  for_each_line(path, fd, size, check, rest, last);
  if (!rest.empty()) {
    AcksHeader header;
    Ack ack;
    if (!parse_header(rest, header) && !parse_ack(rest, ack)) check(last, rest, false);  // throws
    throw acks_error(path, line_error(last, "cut short (no newline ends it; every line is written whole)"));
  }
  return acks;
}

struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

bool same_file(const struct stat& a, const struct stat& b) { return a.st_dev == b.st_dev && a.st_ino == b.st_ino; }

// Neither the acks file's directory nor any above it may be the database's.
void refuse_inside(const std::string& path, int folder_fd, int database_dir_fd, const std::string& database_dir) {
  struct stat database{};
  if (::fstat(database_dir_fd, &database) != 0)
    throw std::runtime_error("database directory '" + database_dir + "': stat: " + io::errno_text(errno));
  Fd walk{::openat(folder_fd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC)};
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
}

void refuse_unless_regular(const std::string& path, const struct stat& st) {
  if (!S_ISREG(st.st_mode))
    throw acks_error(path, std::string("is ") + recovery::file_kind(st.st_mode) +
                               ", not a regular file (acknowledgements go to a regular file)");
}

}  // namespace

std::string database_id_text(u64 database_id) {
  char text[24];
  std::snprintf(text, sizeof(text), "%016llx", static_cast<unsigned long long>(database_id));
  return text;
}

std::string acks_header_line(const AcksHeader& header) {
  return kHeaderStart + std::to_string(header.run_id) + kHeaderMiddle + database_id_text(header.database_id) + "\n";
}

AcksFile::AcksFile(const std::string& path) : path_(path) {
  // Without blocking: a FIFO would block open(2) until a writer came.
  fd_ = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd_ < 0) throw acks_error(path, "cannot be read: " + io::errno_text(errno));
  struct stat st{};
  if (::fstat(fd_, &st) != 0) {
    const int error = errno;
    ::close(fd_);
    throw acks_error(path, "stat: " + io::errno_text(error));
  }
  try {
    refuse_unless_regular(path, st);
    size_ = static_cast<u64>(st.st_size);
    acks_ = scan_acks(path_, fd_, size_, nullptr, nullptr);
  } catch (...) {
    ::close(fd_);
    throw;
  }
}

AcksFile::~AcksFile() {
  if (fd_ >= 0) ::close(fd_);
}

AcksFile::AcksFile(AcksFile&& other) noexcept
    : path_(std::move(other.path_)), fd_(other.fd_), size_(other.size_), acks_(other.acks_) {
  other.fd_ = -1;
}

void AcksFile::for_each(const std::function<void(const AcksHeader&)>& on_run,
                        const std::function<void(const Ack&)>& on_ack) const {
  scan_acks(path_, fd_, size_, on_run, on_ack);
}

std::vector<Ack> read_acks(const std::string& path) {
  std::vector<Ack> acks;
  AcksFile(path).for_each(nullptr, [&](const Ack& ack) { acks.push_back(ack); });
  return acks;
}

AcksWriter::AcksWriter(const std::string& path, int database_dir_fd, const std::string& database_dir,
                       const AcksHeader& header)
    : path_(path) {
  if (path.empty()) return;
  // The file a symlink names is the one written.
  std::string target = path;
  struct stat link{};
  if (::lstat(path.c_str(), &link) == 0 && S_ISLNK(link.st_mode)) {
    char resolved[PATH_MAX];
    if (::realpath(path.c_str(), resolved) == nullptr)
      throw acks_error(path, "a symlink that cannot be resolved: " + io::errno_text(errno));
    target = resolved;
  }
  const std::filesystem::path file(target);
  if (!file.has_filename()) throw acks_error(path, "names a directory, not a file");
  const std::string parent = file.has_parent_path() ? file.parent_path().string() : ".";
  Fd folder{::open(parent.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC)};
  if (folder.fd < 0)
    throw acks_error(path, "its directory '" + io::printable(parent) + "' cannot be opened: " + io::errno_text(errno));
  refuse_inside(path, folder.fd, database_dir_fd, database_dir);

  const std::string name = file.filename().string();
  struct stat existing{};
  const bool exists = ::fstatat(folder.fd, name.c_str(), &existing, 0) == 0;
  if (exists) refuse_unless_regular(path, existing);
  if (exists && existing.st_size > 0) AcksFile{path};  // appended to only if it holds acknowledgements alone
  // O_EXCL tells a file made here (removed again if refused) from one that was there.
  const bool created = !exists;
  const int create = exists ? 0 : O_CREAT | O_EXCL;
  fd_ = ::openat(folder.fd, name.c_str(), O_WRONLY | O_APPEND | O_NONBLOCK | O_CLOEXEC | create, 0644);
  if (fd_ < 0) throw acks_error(path, "cannot be opened for appending: " + io::errno_text(errno));
  auto refuse = [&](const std::string& what) {
    ::close(fd_);
    fd_ = -1;
    if (created) ::unlinkat(folder.fd, name.c_str(), 0);
    throw acks_error(path, what);
  };
  struct stat st{};
  if (::fstat(fd_, &st) != 0) refuse("stat: " + io::errno_text(errno));
  if (!S_ISREG(st.st_mode)) refuse(std::string("is ") + recovery::file_kind(st.st_mode) + ", not a regular file");
  const std::string line = acks_header_line(header);
  if (const io::Transfer t = io::write_all(fd_, line.data(), line.size()); !t.whole())
    refuse("writing its header: " + (t.error ? io::errno_text(t.error) : t.why()));
}

AcksWriter::~AcksWriter() {
  if (fd_ >= 0) ::close(fd_);
}

void AcksWriter::ack(TxnType type, u64 stamp) {
  if (fd_ < 0) return;
  char line[48];
  const int n = std::snprintf(line, sizeof(line), "%c %llu\n", type == TxnType::kNewOrder ? 'N' : 'P',
                              static_cast<unsigned long long>(stamp));
  const ssize_t written = ::write(fd_, line, static_cast<size_t>(n));
  if (written != n)
    throw std::runtime_error("acks file '" + io::printable(path_) + "': write: " +
                             (written < 0 ? io::errno_text(errno) : "cut short (" + std::to_string(written) + " of " +
                                                                        std::to_string(n) + " bytes)"));
}

}  // namespace dbrepro::tpcc
