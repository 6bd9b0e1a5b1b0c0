#pragma once
// The framing both studies' wire protocols share (E3's openedge/protocol.hpp,
// E2's sysbench/point_protocol.hpp): a frame is a u32 body length in the
// host's (little-endian) byte order, then the body. What a body holds is each
// study's own. The bytes on the wire are exactly these: E3 counts them.
#include <bit>
#include <cstddef>
#include <cstring>
#include <vector>

#include "common/types.hpp"

namespace dbrepro::net {

static_assert(std::endian::native == std::endian::little, "frames carry the host's little-endian layout");

inline constexpr u32 kFrameHeader = sizeof(u32);

// Appends a frame's length field; end_frame sets it once the body follows.
inline size_t begin_frame(std::vector<std::byte>& out) {
  const size_t start = out.size();
  out.resize(start + kFrameHeader);
  return start;
}
inline void end_frame(std::vector<std::byte>& out, size_t start) {
  const u32 length = static_cast<u32>(out.size() - start - kFrameHeader);
  std::memcpy(out.data() + start, &length, sizeof(length));
}

// What the bytes at hand hold: a whole frame, the start of one, or a length
// over `max_body` (its stream cannot be re-synchronised).
enum class FrameState : u8 { kWhole, kNeedMore, kOversized };
struct FramePeek {
  FrameState state = FrameState::kNeedMore;
  u32 length = 0;  // the body's, once the header is there
};
inline FramePeek peek_frame(const std::byte* data, size_t size, u32 max_body) {
  FramePeek p;
  if (size < kFrameHeader) return p;
  std::memcpy(&p.length, data, sizeof(p.length));
  if (p.length > max_body)
    p.state = FrameState::kOversized;
  else if (size - kFrameHeader >= p.length)
    p.state = FrameState::kWhole;
  return p;
}

}  // namespace dbrepro::net
