#pragma once
// Whole reads and writes on a descriptor: the one loop (retried on EINTR and
// short counts) that every file, pipe and socket of the engine goes through.
// Each returns what it moved; the caller decides whether a short transfer is
// an end (a peer that closed between frames) or a failure, and names what
// failed: `io_error` builds that message.
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

namespace dbrepro::io {

struct Transfer {
  size_t done = 0;  // bytes moved
  int error = 0;    // errno of the call that failed; 0 with done < wanted: the stream or file ended
  size_t wanted = 0;

  bool whole() const { return done == wanted; }
  bool ended_before_any() const { return done == 0 && error == 0; }
  std::string why() const {
    if (error != 0) return std::strerror(error);
    return "ended after " + std::to_string(done) + " of " + std::to_string(wanted) + " bytes";
  }
};

// `op(done)` moves bytes from offset `done` and returns what read/write return.
template <class Op>
inline Transfer transfer_whole(size_t size, Op op) {
  Transfer t{0, 0, size};
  while (t.done < size) {
    const ssize_t n = op(t.done);
    if (n > 0) {
      t.done += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    t.error = n < 0 ? errno : 0;
    break;
  }
  return t;
}

inline Transfer read_full(int fd, void* data, size_t size) {
  auto* p = static_cast<char*>(data);
  return transfer_whole(size, [&](size_t done) { return ::read(fd, p + done, size - done); });
}

inline Transfer write_all(int fd, const void* data, size_t size) {
  const auto* p = static_cast<const char*>(data);
  return transfer_whole(size, [&](size_t done) { return ::write(fd, p + done, size - done); });
}

// A socket whose peer is gone fails with EPIPE instead of raising SIGPIPE.
inline Transfer send_all(int fd, const void* data, size_t size) {
  const auto* p = static_cast<const char*>(data);
  return transfer_whole(size, [&](size_t done) { return ::send(fd, p + done, size - done, MSG_NOSIGNAL); });
}

inline Transfer pread_full(int fd, void* data, size_t size, off_t at) {
  auto* p = static_cast<char*>(data);
  return transfer_whole(size,
                        [&](size_t done) { return ::pread(fd, p + done, size - done, at + static_cast<off_t>(done)); });
}

inline Transfer pwrite_all(int fd, const void* data, size_t size, off_t at) {
  const auto* p = static_cast<const char*>(data);
  return transfer_whole(
      size, [&](size_t done) { return ::pwrite(fd, p + done, size - done, at + static_cast<off_t>(done)); });
}

// "WHAT: why" (the errno's text, or where the stream ended).
inline std::runtime_error io_error(const std::string& what, const Transfer& t) {
  return std::runtime_error(what + ": " + t.why());
}

}  // namespace dbrepro::io
