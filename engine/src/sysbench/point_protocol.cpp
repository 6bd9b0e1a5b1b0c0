#include "sysbench/point_protocol.hpp"

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "io/fd.hpp"
#include "net/frame.hpp"

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
  std::vector<std::byte> frame;
  append_points_frame(points, frame);
  return frame;
}

void append_points_frame(const std::vector<u32>& points, std::vector<std::byte>& out) {
  const size_t start = net::begin_frame(out);
  put(out, static_cast<u8>('P'));
  put(out, static_cast<u32>(points.size()));
  const size_t at = out.size();
  out.resize(at + 4 * points.size());
  std::memcpy(out.data() + at, points.data(), 4 * points.size());
  net::end_frame(out, start);
}

std::vector<std::byte> seed_frame(u32 count, u64 seed) {
  std::vector<std::byte> frame;
  const size_t start = net::begin_frame(frame);
  put(frame, static_cast<u8>('S'));
  put(frame, count);
  put(frame, seed);
  net::end_frame(frame, start);
  return frame;
}

std::vector<std::byte> error_frame(const std::string& line) {
  std::vector<std::byte> frame;
  const size_t start = net::begin_frame(frame);
  put(frame, static_cast<u8>('E'));
  for (char ch : line) frame.push_back(static_cast<std::byte>(ch == '\n' || ch == '\r' ? ' ' : ch));
  net::end_frame(frame, start);
  return frame;
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

}  // namespace dbrepro::sysbench
