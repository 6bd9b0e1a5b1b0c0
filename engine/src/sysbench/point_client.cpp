#include "sysbench/point_client.hpp"

#include <unistd.h>

#include <cstring>
#include <stdexcept>

#include "net/socket.hpp"
#include "sysbench/select_random_points.hpp"

namespace dbrepro::sysbench {

SbtestRow PointReply::row(u64 i) const {
  if (i >= rows) throw std::out_of_range("reply row " + std::to_string(i) + " of " + std::to_string(rows));
  SbtestRow out;
  std::memcpy(&out, row_bytes.data() + i * sizeof out, sizeof out);
  return out;
}

PointClient::PointClient(const std::string& path) : fd_(net::connect_unix(path)) {}

PointClient::~PointClient() {
  if (fd_ >= 0) ::close(fd_);
}

void PointClient::send_bytes(const std::vector<std::byte>& bytes) { write_full(fd_, bytes.data(), bytes.size()); }

bool PointClient::call(const std::vector<std::byte>& frame, PointReply& reply) {
  send_bytes(frame);
  return read_reply(reply);
}

bool PointClient::query(const std::vector<u32>& points, PointReply& reply) {
  frame_.clear();  // kept: its capacity serves every query
  append_points_frame(points, frame_);
  return call(frame_, reply);
}

bool PointClient::read_reply(PointReply& reply) {
  u32 length = 0;
  if (!read_full(fd_, &length, sizeof length)) return false;
  if (length < 1) throw std::runtime_error("malformed reply: empty");
  char kind = 0;
  read_full(fd_, &kind, 1);
  reply.error.clear();
  if (kind == 'E') {
    reply.ok = false;
    reply.rows = reply.checksum = 0;
    reply.error.resize(length - 1);
    if (length > 1) read_full(fd_, reply.error.data(), length - 1);
    return true;
  }
  if (kind != 'R' || length < kReplyHeader) throw std::runtime_error("malformed reply: kind or length");
  read_full(fd_, &reply.rows, 8);
  read_full(fd_, &reply.checksum, 8);
  if (length - kReplyHeader != reply.rows * sizeof(SbtestRow))
    throw std::runtime_error("malformed reply: " + std::to_string(length) + " bytes for " +
                             std::to_string(reply.rows) + " rows");
  reply.row_bytes.resize(length - kReplyHeader);
  if (!reply.row_bytes.empty()) read_full(fd_, reply.row_bytes.data(), reply.row_bytes.size());
  reply.ok = true;
  return true;
}

u64 reply_checksum(const PointReply& reply) {
  u64 sum = 0;
  for (u64 i = 0; i < reply.rows; ++i) sum += row_digest(reply.row(i));
  return sum;
}

}  // namespace dbrepro::sysbench
