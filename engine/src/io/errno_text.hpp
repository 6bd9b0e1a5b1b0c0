#pragma once
// An errno as a one-line message shows it: its text and its name
// ("Input/output error (EIO)"), so that a user can look either up.
#include <string.h>

#include <string>

namespace dbrepro::io {

inline std::string errno_text(int error) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 32)
  const char* name = ::strerrorname_np(error);
#else
  const char* name = nullptr;  // the name needs glibc 2.32
#endif
  return std::string(::strerror(error)) + (name ? std::string(" (") + name + ")" : std::string());
}

}  // namespace dbrepro::io
