#include "common/random.hpp"

#include <cstring>

namespace dbrepro {

size_t Random::astring(char* buf, size_t capacity, size_t min_len, size_t max_len) {
  static constexpr char kAlphabet[] =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  const size_t len = static_cast<size_t>(uniform(static_cast<i64>(min_len), static_cast<i64>(max_len)));
  std::memset(buf, 0, capacity);
  for (size_t i = 0; i < len && i < capacity; ++i) buf[i] = kAlphabet[next() % (sizeof(kAlphabet) - 1)];
  return len < capacity ? len : capacity;
}

void Random::nstring(char* buf, size_t len) {
  for (size_t i = 0; i < len; ++i) buf[i] = static_cast<char>('0' + next() % 10);
}

}  // namespace dbrepro
