#include "sysbench/point_protocol.hpp"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "io/fd.hpp"

namespace dbrepro::sysbench {

namespace {
template <class T>
void put(std::vector<std::byte>& out, T value) {
  const size_t at = out.size();
  out.resize(at + sizeof value);
  std::memcpy(out.data() + at, &value, sizeof value);
}

template <class T>
T get(const std::byte* at) {
  T value;
  std::memcpy(&value, at, sizeof value);
  return value;
}

std::vector<std::byte> framed(std::vector<std::byte> body) {
  std::vector<std::byte> frame;
  frame.reserve(4 + body.size());
  put(frame, static_cast<u32>(body.size()));
  frame.insert(frame.end(), body.begin(), body.end());
  return frame;
}

sockaddr_un address_of(const std::string& path) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (path.empty() || path.size() >= sizeof address.sun_path)
    throw std::runtime_error("socket path '" + path + "': empty or longer than " +
                             std::to_string(sizeof address.sun_path - 1) + " bytes");
  std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
  return address;
}
}  // namespace

std::string parse_request(const std::byte* body, u32 length, PointRequest& out) {
  if (length < 1) return "empty request";
  const char kind = static_cast<char>(body[0]);
  if (kind != 'P' && kind != 'S')
    return std::string("unknown request kind 0x") + "0123456789abcdef"[(static_cast<u8>(kind) >> 4) & 15] +
           "0123456789abcdef"[static_cast<u8>(kind) & 15] + " (expected 'P' points or 'S' seed)";
  if (length < 5) return "request of " + std::to_string(length) + " bytes has no point count";
  const u32 count = get<u32>(body + 1);
  if (count < 1 || count > kMaxPoints)
    return "P: must be in 1.." + std::to_string(kMaxPoints) + ", got " + std::to_string(count);
  const u64 expected = kind == 'P' ? 5 + u64{4} * count : 5 + 8;
  if (length != expected)
    return "request of " + std::to_string(length) + " bytes does not match " + kind + " with P=" +
           std::to_string(count) + " (expected " + std::to_string(expected) + ")";
  out.count = count;
  if (kind == 'S') {
    out.kind = RequestKind::kSeed;
    out.seed = get<u64>(body + 5);
    out.points.clear();
  } else {
    out.kind = RequestKind::kPoints;
    out.points.resize(count);
    std::memcpy(out.points.data(), body + 5, u64{4} * count);
  }
  return "";
}

std::vector<std::byte> points_frame(const std::vector<u32>& points) {
  std::vector<std::byte> body;
  body.reserve(5 + 4 * points.size());
  put(body, static_cast<u8>('P'));
  put(body, static_cast<u32>(points.size()));
  for (u32 p : points) put(body, p);
  return framed(std::move(body));
}

std::vector<std::byte> seed_frame(u32 count, u64 seed) {
  std::vector<std::byte> body;
  put(body, static_cast<u8>('S'));
  put(body, count);
  put(body, seed);
  return framed(std::move(body));
}

std::vector<std::byte> error_frame(const std::string& line) {
  std::vector<std::byte> body;
  put(body, static_cast<u8>('E'));
  for (char ch : line) body.push_back(static_cast<std::byte>(ch == '\n' || ch == '\r' ? ' ' : ch));
  return framed(std::move(body));
}

bool read_full(int fd, void* buffer, size_t size) {
  const io::Transfer t = io::read_full(fd, buffer, size);
  if (t.whole()) return true;
  if (t.ended_before_any()) return false;  // the peer closed between frames
  if (t.done == 0 && (t.error == ECONNRESET || t.error == EBADF || t.error == EINVAL)) return false;
  throw t.error == 0 ? std::runtime_error("connection closed inside a frame") : io::io_error("recv", t);
}

void write_full(int fd, const void* buffer, size_t size) {
  if (const io::Transfer t = io::send_all(fd, buffer, size); !t.whole()) throw io::io_error("send", t);
}

int listen_unix(const std::string& path, int backlog) {
  const sockaddr_un address = address_of(path);
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw std::runtime_error("socket: " + std::string(std::strerror(errno)));
  ::unlink(path.c_str());
  if (::bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0 || ::listen(fd, backlog) != 0) {
    const int error = errno;
    ::close(fd);
    throw std::runtime_error("cannot listen on " + path + ": " + std::strerror(error));
  }
  return fd;
}

int connect_unix(const std::string& path) {
  const sockaddr_un address = address_of(path);
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw std::runtime_error("socket: " + std::string(std::strerror(errno)));
  for (int attempt = 0;; ++attempt) {
    if (::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0) return fd;
    // A full backlog (many clients connecting at once) is retried, as a client library does.
    if ((errno == EAGAIN || errno == EINTR) && attempt < 1000) {
      ::usleep(1000);
      continue;
    }
    const int error = errno;
    ::close(fd);
    throw std::runtime_error("cannot connect to " + path + ": " + std::strerror(error));
  }
}

}  // namespace dbrepro::sysbench
