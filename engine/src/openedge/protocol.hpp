#pragma once
// E3's wire protocol: length-prefixed binary frames over TCP.
//
//   frame   = u32 body length (little-endian) + body
//   body    = u8 message type + fields
//   OPEN    table u8, column u8, lo i64, hi i64, prefetch u32    -> RECORDS (cursor, first batch)
//   NEXT    cursor u32, prefetch u32                             -> RECORDS
//   FIND    table u8, column u8, value i64                       -> RECORDS (0 or 1 record, end)
//   JOIN    lo i64, hi i64, prefetch u32, steps u8,
//           steps x (table u8, column u8, parent column u8)      -> RECORDS (join cursor, first batch)
//   CLOSE   cursor u32                                           -> OK
//   RECORDS cursor u32, end u8, count u32, count x (level u8, record 64 bytes)
//   OK      (no fields)
//   ERROR   code u16, message length u16, message
//
// A cursor whose reply says `end` is already closed on the server. The
// decoders are pure functions over bytes (no sockets), so they can be fuzzed.
#include <cstddef>
#include <string>
#include <variant>
#include <vector>

#include "common/types.hpp"
#include "net/frame.hpp"
#include "openedge/join_cursor.hpp"
#include "openedge/schema.hpp"

namespace dbrepro::openedge {

enum class MessageType : u8 {
  kOpen = 1,
  kNext = 2,
  kFind = 3,
  kJoin = 4,
  kClose = 5,
  kRecords = 0x81,
  kOk = 0x82,
  kError = 0xEE,
};

enum class ErrorCode : u16 {
  kMalformed = 1,        // the frame's body does not parse
  kOversized = 2,        // the frame is longer than the limit (the connection is closed after)
  kUnknownCursor = 3,
  kConnectionLimit = 4,  // the server has no room for another client (closed after)
  kServer = 5,
};

using net::kFrameHeader;  // frames are net/frame.hpp's
inline constexpr u32 kMaxBody = 1u << 20;
inline constexpr u32 kMaxPrefetch = 10000;  // keeps every reply below kMaxBody
inline constexpr u32 kWireRecord = 1 + sizeof(Record);

struct OpenRequest {
  u8 table = 0;
  Column column = Column::kNumKey;
  i64 lo = 0, hi = 0;
  u32 prefetch = 1;
};
struct NextRequest {
  u32 cursor = 0;
  u32 prefetch = 1;
};
struct FindRequest {
  u8 table = 0;
  Column column = Column::kNumKey;
  i64 value = 0;
};
struct JoinRequest {
  JoinSpec spec;
  u32 prefetch = 1;
};
struct CloseRequest {
  u32 cursor = 0;
};
using Request = std::variant<OpenRequest, NextRequest, FindRequest, JoinRequest, CloseRequest>;

struct RecordsReply {
  u32 cursor = 0;
  bool end = true;
  std::vector<JoinEntry> entries;  // level 0 for single-table cursors
};
struct OkReply {};
struct ErrorReply {
  ErrorCode code = ErrorCode::kServer;
  std::string message;
};
using Reply = std::variant<RecordsReply, OkReply, ErrorReply>;

enum class DecodeStatus : u8 { kOk, kNeedMore, kError };

template <class Message>
struct Decoded {
  DecodeStatus status = DecodeStatus::kNeedMore;
  Message message{};
  // kOk and kError: the frame's length, to skip it; 0 with kError when the
  // stream cannot be resynchronised (an oversized frame): close the connection.
  size_t consumed = 0;
  ErrorCode error = ErrorCode::kMalformed;
  std::string reason;
};

Decoded<Request> decode_request(const std::byte* data, size_t size, u32 max_body = kMaxBody);
Decoded<Reply> decode_reply(const std::byte* data, size_t size, u32 max_body = kMaxBody);

// Each appends one whole frame to `out`.
void encode(const Request& request, std::vector<std::byte>& out);
void encode_records(u32 cursor, bool end, const std::vector<Record>& records, std::vector<std::byte>& out);
void encode_records(u32 cursor, bool end, const std::vector<JoinEntry>& entries, std::vector<std::byte>& out);
void encode_ok(std::vector<std::byte>& out);
void encode_error(ErrorCode code, const std::string& message, std::vector<std::byte>& out);

}  // namespace dbrepro::openedge
