#include "openedge/protocol.hpp"

#include <algorithm>

#include "net/frame.hpp"
#include "openedge/wire.hpp"

namespace dbrepro::openedge {
namespace {

template <class Message>
Decoded<Message> failure(ErrorCode code, std::string reason, size_t consumed) {
  Decoded<Message> d;
  d.status = DecodeStatus::kError;
  d.error = code;
  d.reason = std::move(reason);
  d.consumed = consumed;
  return d;
}

// The frame around a body: need more bytes, an error, or the body to parse.
template <class Message>
bool open_frame(const std::byte* data, size_t size, u32 max_body, Decoded<Message>& result, WireReader& body) {
  const net::FramePeek frame = net::peek_frame(data, size, max_body);
  const u32 length = frame.length;
  if (size < kFrameHeader) return false;  // kNeedMore
  if (frame.state == net::FrameState::kOversized) {
    result = failure<Message>(ErrorCode::kOversized,
                              "frame of " + std::to_string(length) + " bytes exceeds the limit of " +
                                  std::to_string(max_body),
                              0);
    return false;
  }
  if (length == 0) {
    result = failure<Message>(ErrorCode::kMalformed, "empty frame (no message type)", kFrameHeader);
    return false;
  }
  if (frame.state == net::FrameState::kNeedMore) return false;
  body = WireReader{data + kFrameHeader, length};
  result.consumed = kFrameHeader + length;
  return true;
}

std::string type_name(u8 type) { return "message type " + std::to_string(type); }

bool valid_column(u8 c) { return c < kColumns; }

// Field checks shared by OPEN and FIND: a message naming a table or column that
// does not exist is malformed, like one with missing bytes.
std::string check_table_column(u8 table, u8 column) {
  if (table >= kTables) return "table " + std::to_string(table) + " does not exist (0.." + std::to_string(kTables - 1) + ")";
  if (!valid_column(column))
    return "column " + std::to_string(column) + " does not exist (0.." + std::to_string(kColumns - 1) + ")";
  return {};
}

std::string check_prefetch(u32 prefetch) {
  if (prefetch < 1 || prefetch > kMaxPrefetch)
    return "prefetch " + std::to_string(prefetch) + " outside 1.." + std::to_string(kMaxPrefetch);
  return {};
}

std::string parse_request(WireReader& in, Request& out) {
  const u8 type = in.get<u8>();
  switch (static_cast<MessageType>(type)) {
    case MessageType::kOpen: {
      OpenRequest r;
      r.table = in.get<u8>();
      const u8 column = in.get<u8>();
      r.lo = in.get<i64>();
      r.hi = in.get<i64>();
      r.prefetch = in.get<u32>();
      if (!in.ok) return "OPEN: truncated";
      if (auto e = check_table_column(r.table, column); !e.empty()) return "OPEN: " + e;
      if (auto e = check_prefetch(r.prefetch); !e.empty()) return "OPEN: " + e;
      r.column = static_cast<Column>(column);
      out = r;
      break;
    }
    case MessageType::kNext: {
      NextRequest r;
      r.cursor = in.get<u32>();
      r.prefetch = in.get<u32>();
      if (!in.ok) return "NEXT: truncated";
      if (auto e = check_prefetch(r.prefetch); !e.empty()) return "NEXT: " + e;
      out = r;
      break;
    }
    case MessageType::kFind: {
      FindRequest r;
      r.table = in.get<u8>();
      const u8 column = in.get<u8>();
      r.value = in.get<i64>();
      if (!in.ok) return "FIND: truncated";
      if (auto e = check_table_column(r.table, column); !e.empty()) return "FIND: " + e;
      r.column = static_cast<Column>(column);
      out = r;
      break;
    }
    case MessageType::kJoin: {
      JoinRequest r;
      r.spec.lo = in.get<i64>();
      r.spec.hi = in.get<i64>();
      r.prefetch = in.get<u32>();
      const u8 steps = in.get<u8>();
      if (!in.ok) return "JOIN: truncated";
      if (steps < 1 || steps > kMaxJoinSteps)
        return "JOIN: " + std::to_string(steps) + " steps outside 1.." + std::to_string(kMaxJoinSteps);
      if (auto e = check_prefetch(r.prefetch); !e.empty()) return "JOIN: " + e;
      for (u8 i = 0; i < steps; ++i) {
        const u8 table = in.get<u8>(), column = in.get<u8>(), parent = in.get<u8>();
        if (!in.ok) return "JOIN: truncated";
        if (auto e = check_table_column(table, column); !e.empty()) return "JOIN step " + std::to_string(i) + ": " + e;
        if (i == 0 ? parent != kNoColumn : !valid_column(parent))
          return "JOIN step " + std::to_string(i) + ": parent column " + std::to_string(parent) +
                 (i == 0 ? " on the first step (must be 255)" : " does not exist");
        r.spec.steps.push_back({table, static_cast<Column>(column), parent});
      }
      out = std::move(r);
      break;
    }
    case MessageType::kClose: {
      CloseRequest r;
      r.cursor = in.get<u32>();
      if (!in.ok) return "CLOSE: truncated";
      out = r;
      break;
    }
    default:
      return "unknown " + type_name(type);
  }
  if (in.left != 0) return "trailing " + std::to_string(in.left) + " bytes after " + type_name(type);
  return {};
}

std::string parse_reply(WireReader& in, Reply& out) {
  const u8 type = in.get<u8>();
  switch (static_cast<MessageType>(type)) {
    case MessageType::kRecords: {
      RecordsReply r;
      r.cursor = in.get<u32>();
      r.end = in.get<u8>() != 0;
      const u32 count = in.get<u32>();
      if (!in.ok) return "RECORDS: truncated";
      if (u64{count} * kWireRecord != in.left) return "RECORDS: count does not match the frame's length";
      r.entries.resize(count);
      for (auto& e : r.entries) {
        e.level = in.get<u8>();
        in.take(&e.record, sizeof(Record));
      }
      out = std::move(r);
      break;
    }
    case MessageType::kOk:
      out = OkReply{};
      break;
    case MessageType::kError: {
      ErrorReply r;
      r.code = static_cast<ErrorCode>(in.get<u16>());
      const u16 length = in.get<u16>();
      if (!in.ok || in.left < length) return "ERROR: truncated";
      r.message.resize(length);
      in.take(r.message.data(), length);
      out = std::move(r);
      break;
    }
    default:
      return "unknown " + type_name(type);
  }
  if (in.left != 0) return "trailing " + std::to_string(in.left) + " bytes after " + type_name(type);
  return {};
}

template <class Message, class Parse>
Decoded<Message> decode(const std::byte* data, size_t size, u32 max_body, Parse parse) {
  Decoded<Message> result;
  WireReader body{nullptr, 0};
  if (!open_frame(data, size, max_body, result, body)) return result;
  if (auto reason = parse(body, result.message); !reason.empty())
    return failure<Message>(ErrorCode::kMalformed, std::move(reason), result.consumed);
  result.status = DecodeStatus::kOk;
  return result;
}

// A frame is built in place: reserve the length, write the body, patch it.
struct FrameBuilder {
  std::vector<std::byte>& out;
  size_t start;
  explicit FrameBuilder(std::vector<std::byte>& o, MessageType type) : out(o), start(net::begin_frame(o)) {
    WireWriter{out}.put<u8>(static_cast<u8>(type));
  }
  ~FrameBuilder() { net::end_frame(out, start); }
};

template <class Entries, class LevelOf, class RecordOf>
void encode_entries(u32 cursor, bool end, const Entries& entries, std::vector<std::byte>& out, LevelOf level_of,
                    RecordOf record_of) {
  FrameBuilder frame(out, MessageType::kRecords);
  WireWriter w{out};
  w.put<u32>(cursor);
  w.put<u8>(end ? 1 : 0);
  w.put<u32>(static_cast<u32>(entries.size()));
  out.reserve(out.size() + entries.size() * kWireRecord);
  for (const auto& e : entries) {
    w.put<u8>(level_of(e));
    w.bytes(&record_of(e), sizeof(Record));
  }
}

}  // namespace

Decoded<Request> decode_request(const std::byte* data, size_t size, u32 max_body) {
  return decode<Request>(data, size, max_body, parse_request);
}

Decoded<Reply> decode_reply(const std::byte* data, size_t size, u32 max_body) {
  return decode<Reply>(data, size, max_body, parse_reply);
}

void encode(const Request& request, std::vector<std::byte>& out) {
  std::visit(
      [&out](const auto& r) {
        using T = std::decay_t<decltype(r)>;
        WireWriter w{out};
        if constexpr (std::is_same_v<T, OpenRequest>) {
          FrameBuilder frame(out, MessageType::kOpen);
          w.put<u8>(r.table);
          w.put<u8>(static_cast<u8>(r.column));
          w.put<i64>(r.lo);
          w.put<i64>(r.hi);
          w.put<u32>(r.prefetch);
        } else if constexpr (std::is_same_v<T, NextRequest>) {
          FrameBuilder frame(out, MessageType::kNext);
          w.put<u32>(r.cursor);
          w.put<u32>(r.prefetch);
        } else if constexpr (std::is_same_v<T, FindRequest>) {
          FrameBuilder frame(out, MessageType::kFind);
          w.put<u8>(r.table);
          w.put<u8>(static_cast<u8>(r.column));
          w.put<i64>(r.value);
        } else if constexpr (std::is_same_v<T, JoinRequest>) {
          FrameBuilder frame(out, MessageType::kJoin);
          w.put<i64>(r.spec.lo);
          w.put<i64>(r.spec.hi);
          w.put<u32>(r.prefetch);
          w.put<u8>(static_cast<u8>(r.spec.steps.size()));
          for (const auto& s : r.spec.steps) {
            w.put<u8>(s.table);
            w.put<u8>(static_cast<u8>(s.column));
            w.put<u8>(s.parent_column);
          }
        } else {
          FrameBuilder frame(out, MessageType::kClose);
          w.put<u32>(r.cursor);
        }
      },
      request);
}

void encode_records(u32 cursor, bool end, const std::vector<Record>& records, std::vector<std::byte>& out) {
  encode_entries(
      cursor, end, records, out, [](const Record&) { return u8{0}; }, [](const Record& r) -> const Record& { return r; });
}

void encode_records(u32 cursor, bool end, const std::vector<JoinEntry>& entries, std::vector<std::byte>& out) {
  encode_entries(
      cursor, end, entries, out, [](const JoinEntry& e) { return e.level; },
      [](const JoinEntry& e) -> const Record& { return e.record; });
}

void encode_ok(std::vector<std::byte>& out) { FrameBuilder frame(out, MessageType::kOk); }

void encode_error(ErrorCode code, const std::string& message, std::vector<std::byte>& out) {
  FrameBuilder frame(out, MessageType::kError);
  const u16 length = static_cast<u16>(std::min<size_t>(message.size(), 0xFFFF));
  WireWriter w{out};
  w.put<u16>(static_cast<u16>(code));
  w.put<u16>(length);
  w.bytes(message.data(), length);
}

}  // namespace dbrepro::openedge
