#pragma once
// The names in a database directory, sorted into the files a database
// writes (durable_files.hpp) and everything else. Only the exact names are
// ours: `log.<g>` with g written as std::to_string writes it (so `log.02`
// or `log.0` is someone else's file, never taken for log.2), `snapshot`,
// `snapshot.tmp`, `log.pending`, and the empty `lock` file that builds
// before issue 33 left (never used, never removed).
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <string>
#include <vector>

#include "common/types.hpp"
#include "recovery/file_io.hpp"

namespace dbrepro::recovery {

inline constexpr const char* kSnapshotName = "snapshot";
inline constexpr const char* kSnapshotTmpName = "snapshot.tmp";
inline constexpr const char* kPendingLogName = "log.pending";
inline constexpr const char* kLegacyLockName = "lock";

inline std::string log_name(u64 generation) { return "log." + std::to_string(generation); }

struct Listing {
  bool snapshot = false;
  bool snapshot_tmp = false;
  bool pending_log = false;
  std::vector<u64> logs;             // generations of log.<g>, ascending
  std::vector<std::string> foreign;  // every other name, sorted
};

// The generation a log's name holds, or 0 where the name is not exactly
// log.<g> for some g in 1..10^19 - 1.
inline u64 log_generation(const std::string& name) {
  if (name.size() < 5 || name.size() > 4 + 19 || name.compare(0, 4, "log.") != 0 || name[4] == '0') return 0;
  if (name.find_first_not_of("0123456789", 4) != std::string::npos) return 0;
  return std::stoull(name.substr(4));
}

// `dir_fd`: the directory held; `shown` names it in messages.
inline Listing list_directory(int dir_fd, const std::string& shown) {
  Listing listing;
  // A descriptor of its own (fdopendir takes it over) on the directory held.
  const int fd = ::openat(dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) throw io_error(shown, "open directory");
  DIR* d = ::fdopendir(fd);
  if (!d) {
    ::close(fd);
    throw io_error(shown, "opendir");
  }
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    struct stat st{};
    const bool empty_file = ::fstatat(dir_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
                            st.st_size == 0;
    if (name == kSnapshotName) listing.snapshot = true;
    else if (name == kSnapshotTmpName) listing.snapshot_tmp = true;
    else if (name == kPendingLogName) listing.pending_log = true;
    else if (const u64 g = log_generation(name); g != 0) listing.logs.push_back(g);
    else if (!(name == kLegacyLockName && empty_file)) listing.foreign.push_back(name);
  }
  ::closedir(d);
  std::sort(listing.logs.begin(), listing.logs.end());
  std::sort(listing.foreign.begin(), listing.foreign.end());
  return listing;
}

}  // namespace dbrepro::recovery
