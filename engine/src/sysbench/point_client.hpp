#pragma once
// One client connection to E2's server (sysbench's role: one per client
// thread, opened before the run, as sysbench's threads each open one MySQL
// connection): sends a request frame and blocks reading the reply, as
// mysql_query + mysql_store_result do. The reply's rows are read whole.
#include <string>
#include <vector>

#include "sysbench/point_protocol.hpp"
#include "sysbench/sbtest.hpp"

namespace dbrepro::sysbench {

struct PointReply {
  bool ok = false;                    // 'R': rows; otherwise 'E' and error
  u64 rows = 0;
  u64 checksum = 0;                   // the server's digest of the rows
  std::string error;                  // the server's one line
  std::vector<std::byte> row_bytes;   // rows x sizeof(SbtestRow), as sent

  SbtestRow row(u64 i) const;         // the i-th row sent
};

class PointClient {
 public:
  explicit PointClient(const std::string& path);  // connects (throws naming the path)
  ~PointClient();
  PointClient(const PointClient&) = delete;
  PointClient& operator=(const PointClient&) = delete;

  // Sends `frame` (any bytes: tests send bad ones) and reads one reply.
  // False when the server closed the connection instead of replying.
  bool call(const std::vector<std::byte>& frame, PointReply& reply);
  bool query(const std::vector<u32>& points, PointReply& reply);  // 'P'
  // A reply after a partial frame, or after the connection was closed: for tests.
  bool read_reply(PointReply& reply);
  void send_bytes(const std::vector<std::byte>& bytes);
  int fd() const { return fd_; }

 private:
  int fd_ = -1;
  std::vector<std::byte> frame_;
};

// The digest of the rows a reply carries (what the server's checksum sums).
u64 reply_checksum(const PointReply& reply);

}  // namespace dbrepro::sysbench
