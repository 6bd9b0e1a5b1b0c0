#pragma once
// A file named relative to an open directory, for openat(2) and its kin: a
// process holding a directory's descriptor (a durable database's locked
// directory) keeps reading and writing in that directory whatever its path
// names later (renamed, replaced, a symlink to it repointed). A plain path
// converts implicitly (resolved from the working directory, AT_FDCWD).
#include <fcntl.h>

#include <string>
#include <utility>

namespace dbrepro::io {

struct FileAt {
  FileAt() = default;
  FileAt(std::string path) : name(path), shown(std::move(path)) {}  // NOLINT: a path is a FileAt
  FileAt(const char* path) : FileAt(std::string(path)) {}            // NOLINT
  FileAt(int dir_fd, std::string name_in_dir, std::string shown_as)
      : dir(dir_fd), name(std::move(name_in_dir)), shown(std::move(shown_as)) {}

  int dir = AT_FDCWD;  // the directory's descriptor (AT_FDCWD: `name` as given)
  std::string name;    // relative to `dir`
  std::string shown;   // in messages: the path the user named
};

}  // namespace dbrepro::io
