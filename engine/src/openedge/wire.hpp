#pragma once
// Little-endian field writers and bounds-checked readers for the protocol.
#include <bit>
#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

#include "common/types.hpp"

namespace dbrepro::openedge {

static_assert(std::endian::native == std::endian::little, "the wire format is the host's little-endian layout");

struct WireWriter {
  std::vector<std::byte>& out;

  void bytes(const void* data, size_t n) {
    const auto* p = static_cast<const std::byte*>(data);
    out.insert(out.end(), p, p + n);
  }
  template <class T>
  void put(T value) {
    bytes(&value, sizeof(T));
  }
};

// Reads fields from a body; any read past its end sets `ok` to false (and yields zeros).
struct WireReader {
  const std::byte* data;
  size_t left;
  bool ok = true;

  template <class T>
  T get() {
    T value{};
    if (left < sizeof(T)) {
      ok = false;
      left = 0;
      return value;
    }
    std::memcpy(&value, data, sizeof(T));
    data += sizeof(T);
    left -= sizeof(T);
    return value;
  }
  bool take(void* dst, size_t n) {
    if (left < n) return ok = false;
    std::memcpy(dst, data, n);
    data += n;
    left -= n;
    return true;
  }
};

}  // namespace dbrepro::openedge
