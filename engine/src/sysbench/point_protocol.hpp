#pragma once
// The wire between E2's clients (sysbench's role) and its server (MariaDB's):
// one small length-prefixed frame per select_random_points, as a MariaDB
// client sends one COM_QUERY packet (a 3-byte length, then the statement) and
// reads the result set back on the same connection. Same-host Unix socket,
// host byte order (the model's two ends are one build on one machine).
//
//   request  u32 length | 'P' u32 count, count x u32 points     (the IN list's values)
//                       | 'S' u32 count, u64 seed               (the server draws the points)
//   reply    u32 length | 'R' u64 rows, u64 checksum, rows x sbtest row (188 bytes: id, k, c, pad,
//                                                                        as MyISAM returns them)
//                       | 'E' one line of text                  (the request was refused)
//
// A refused request whose frame was whole leaves the connection usable; a
// frame longer than kMaxRequestBody is refused and the connection closed
// (its stream cannot be re-synchronised).
#include <cstddef>
#include <string>
#include <vector>

#include "common/types.hpp"

namespace dbrepro::sysbench {

inline constexpr u32 kMaxPoints = 10000;                          // the config's limit on P
inline constexpr u32 kMaxRequestBody = 1 + 4 + 4 * kMaxPoints;    // a 'P' frame of kMaxPoints
inline constexpr u32 kReplyHeader = 1 + 8 + 8;                    // 'R', rows, checksum

enum class RequestKind : u8 { kPoints = 'P', kSeed = 'S' };

struct PointRequest {
  RequestKind kind = RequestKind::kPoints;
  u32 count = 0;
  u64 seed = 0;             // kSeed
  std::vector<u32> points;  // kPoints
};

// Parses a request body (the frame without its length). Returns "" and fills
// `out`, or the reason it is refused: one line, no newline.
std::string parse_request(const std::byte* body, u32 length, PointRequest& out);

// Whole frames (length prefix, net/frame.hpp's, included).
std::vector<std::byte> points_frame(const std::vector<u32>& points);
void append_points_frame(const std::vector<u32>& points, std::vector<std::byte>& out);  // the same, into `out`
std::vector<std::byte> seed_frame(u32 count, u64 seed);
std::vector<std::byte> error_frame(const std::string& line);

// Socket helpers: whole reads and writes, retried on EINTR. read_full
// returns false on a clean end of stream before the first byte; a stream
// that ends inside the buffer throws. write_full throws on failure (no SIGPIPE).
bool read_full(int fd, void* buffer, size_t size);
void write_full(int fd, const void* buffer, size_t size);

}  // namespace dbrepro::sysbench
