#pragma once
// Fresh files for the engine's scratch data (a flushing log, E5's database
// file) and for tests: in a given folder, else $TMPDIR, else /tmp.
#include <stdlib.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

namespace dbrepro {

// `dir`, or $TMPDIR, or /tmp.
inline std::string temp_base(const std::string& dir = "") {
  if (!dir.empty()) return dir;
  const char* tmp = std::getenv("TMPDIR");
  return tmp && *tmp ? tmp : "/tmp";
}

// Creates a new empty file `<base>/<prefix>XXXXXX` and returns its path, with
// its descriptor in *fd if asked for (else closed); "" if it cannot be made.
inline std::string make_temp_file(const std::string& base, const char* prefix, int* fd = nullptr) {
  std::string pattern = base + "/" + prefix + "XXXXXX";
  const int made = ::mkstemp(pattern.data());
  if (made < 0) return "";
  if (fd) {
    *fd = made;
  } else {
    ::close(made);
  }
  return pattern;
}

}  // namespace dbrepro
