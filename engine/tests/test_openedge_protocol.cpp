// E3's frame decoder: round trips, and every kind of bad input answered with
// an error (never a crash, never a read past the bytes given).
#include <gtest/gtest.h>

#include <cstring>

#include "openedge/protocol.hpp"

using namespace dbrepro;
using namespace dbrepro::openedge;

namespace {

std::vector<std::byte> frame_of(const Request& request) {
  std::vector<std::byte> out;
  encode(request, out);
  return out;
}

std::vector<std::byte> raw_frame(std::initializer_list<u8> body) {
  std::vector<std::byte> out(4);
  const u32 length = static_cast<u32>(body.size());
  std::memcpy(out.data(), &length, 4);
  for (u8 b : body) out.push_back(std::byte{b});
  return out;
}

}  // namespace

TEST(OpenEdgeProtocol, RequestsRoundTrip) {
  const JoinSpec spec = article_join(5, 50);
  const auto bytes = frame_of(JoinRequest{spec, 100});
  const auto decoded = decode_request(bytes.data(), bytes.size());
  ASSERT_EQ(decoded.status, DecodeStatus::kOk) << decoded.reason;
  EXPECT_EQ(decoded.consumed, bytes.size());
  const auto& join = std::get<JoinRequest>(decoded.message);
  EXPECT_EQ(join.prefetch, 100u);
  EXPECT_EQ(join.spec.lo, 5);
  EXPECT_EQ(join.spec.hi, 50);
  ASSERT_EQ(join.spec.steps.size(), spec.steps.size());
  for (size_t i = 0; i < spec.steps.size(); ++i) {
    EXPECT_EQ(join.spec.steps[i].table, spec.steps[i].table);
    EXPECT_EQ(join.spec.steps[i].column, spec.steps[i].column);
    EXPECT_EQ(join.spec.steps[i].parent_column, spec.steps[i].parent_column);
  }
  const auto open = frame_of(OpenRequest{3, Column::kPercent75, -4, 9, 7});
  const auto d = decode_request(open.data(), open.size());
  ASSERT_EQ(d.status, DecodeStatus::kOk);
  const auto& o = std::get<OpenRequest>(d.message);
  EXPECT_EQ(o.table, 3);
  EXPECT_EQ(o.column, Column::kPercent75);
  EXPECT_EQ(o.lo, -4);
  EXPECT_EQ(o.hi, 9);
  EXPECT_EQ(o.prefetch, 7u);
}

TEST(OpenEdgeProtocol, RepliesRoundTrip) {
  std::vector<JoinEntry> entries(3);
  for (u8 i = 0; i < 3; ++i) {
    entries[i].level = i;
    entries[i].record.columns[0] = 100 + i;
  }
  std::vector<std::byte> out;
  encode_records(42, false, entries, out);
  encode_error(ErrorCode::kUnknownCursor, "no open cursor 9", out);
  auto first = decode_reply(out.data(), out.size());
  ASSERT_EQ(first.status, DecodeStatus::kOk) << first.reason;
  const auto& records = std::get<RecordsReply>(first.message);
  EXPECT_EQ(records.cursor, 42u);
  EXPECT_FALSE(records.end);
  ASSERT_EQ(records.entries.size(), 3u);
  EXPECT_EQ(records.entries[2].level, 2);
  EXPECT_EQ(num_key(records.entries[2].record), 102);
  auto second = decode_reply(out.data() + first.consumed, out.size() - first.consumed);
  ASSERT_EQ(second.status, DecodeStatus::kOk);
  EXPECT_EQ(std::get<ErrorReply>(second.message).message, "no open cursor 9");
}

TEST(OpenEdgeProtocol, EveryPrefixOfAFrameNeedsMore) {
  const auto bytes = frame_of(JoinRequest{article_join(0, 10), 10});
  for (size_t n = 0; n < bytes.size(); ++n)
    EXPECT_EQ(decode_request(bytes.data(), n).status, DecodeStatus::kNeedMore) << n << " bytes";
}

TEST(OpenEdgeProtocol, MalformedBodiesAreErrorsThatSkipTheFrame) {
  const std::vector<std::vector<std::byte>> bad = {
      raw_frame({0x7F}),                    // unknown type
      raw_frame({1, 0, 0}),                 // OPEN cut short
      raw_frame({5, 1, 0, 0, 0, 9}),        // CLOSE with a trailing byte
      raw_frame({3, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0}),  // FIND on table 9
      raw_frame({4, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0}),  // JOIN with 0 steps
      frame_of(NextRequest{1, 0}),          // prefetch 0
      frame_of(NextRequest{1, kMaxPrefetch + 1}),
  };
  for (const auto& bytes : bad) {
    const auto d = decode_request(bytes.data(), bytes.size());
    EXPECT_EQ(d.status, DecodeStatus::kError);
    EXPECT_EQ(d.error, ErrorCode::kMalformed);
    EXPECT_EQ(d.consumed, bytes.size()) << d.reason;  // the stream stays in step
    EXPECT_FALSE(d.reason.empty());
  }
  const auto empty = raw_frame({});
  EXPECT_EQ(decode_request(empty.data(), empty.size()).consumed, 4u);
}

TEST(OpenEdgeProtocol, OversizedFramesCannotBeSkipped) {
  std::vector<std::byte> bytes(4);
  const u32 length = kMaxBody + 1;
  std::memcpy(bytes.data(), &length, 4);
  const auto d = decode_request(bytes.data(), bytes.size());
  EXPECT_EQ(d.status, DecodeStatus::kError);
  EXPECT_EQ(d.error, ErrorCode::kOversized);
  EXPECT_EQ(d.consumed, 0u);
  EXPECT_NE(d.reason.find("exceeds the limit"), std::string::npos);
}

TEST(OpenEdgeProtocol, JoinStepsAreChecked) {
  JoinSpec spec = article_join(0, 1);
  spec.steps[0].parent_column = 1;  // the first step has no parent
  auto bytes = frame_of(JoinRequest{spec, 1});
  EXPECT_EQ(decode_request(bytes.data(), bytes.size()).status, DecodeStatus::kError);
  spec = article_join(0, 1);
  spec.steps[3].parent_column = 7;
  bytes = frame_of(JoinRequest{spec, 1});
  EXPECT_EQ(decode_request(bytes.data(), bytes.size()).status, DecodeStatus::kError);
  spec.steps.resize(kMaxJoinSteps + 1, spec.steps[1]);
  spec.steps[3].parent_column = 0;
  bytes = frame_of(JoinRequest{spec, 1});
  EXPECT_EQ(decode_request(bytes.data(), bytes.size()).status, DecodeStatus::kError);
}
