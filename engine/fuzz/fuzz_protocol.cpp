// libFuzzer target for E3's frame decoders (the server's whole input surface).
//   clang++ -std=c++20 -g -O1 -fsanitize=fuzzer,address,undefined -Iengine/src \
//     engine/fuzz/fuzz_protocol.cpp engine/src/openedge/protocol.cpp -o fuzz_protocol
// Checks, beyond "no crash": a decoder never consumes more than it was given,
// and a frame that decodes re-encodes to exactly the same bytes (the format
// has one encoding per message), so a server and a client agree on it.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "openedge/protocol.hpp"

using namespace dbrepro::openedge;

namespace {

void check(bool condition) {
  if (!condition) std::abort();
}

// Feed the bytes as a stream, the way the server does: frame after frame.
void decode_stream(const std::byte* data, size_t size) {
  size_t at = 0;
  while (at < size) {
    auto decoded = decode_request(data + at, size - at, 1u << 16);
    check(decoded.consumed <= size - at);
    if (decoded.status == DecodeStatus::kNeedMore) return;
    if (decoded.status == DecodeStatus::kOk) {
      std::vector<std::byte> again;
      encode(decoded.message, again);
      check(again.size() == decoded.consumed && std::memcmp(again.data(), data + at, again.size()) == 0);
    }
    if (decoded.consumed == 0) return;  // oversized: the server closes the connection here
    at += decoded.consumed;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto* bytes = reinterpret_cast<const std::byte*>(data);
  decode_stream(bytes, size);
  auto reply = decode_reply(bytes, size, 1u << 16);
  check(reply.consumed <= size);
  return 0;
}
