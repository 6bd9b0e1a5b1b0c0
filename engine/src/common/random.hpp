#pragma once
// Deterministic pseudo-random numbers: the same seed gives the same database
// and the same transaction stream on every machine (std::mt19937 would too, but
// std distributions are implementation-defined, so we roll our own ranges).
#include <string>

#include "common/types.hpp"

namespace dbrepro {

class Random {
 public:
  explicit Random(u64 seed) : state_(seed * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull) {
    if (state_ == 0) state_ = 1;
  }

  // xorshift64*: fast, good enough for workload generation.
  u64 next() {
    state_ ^= state_ >> 12;
    state_ ^= state_ << 25;
    state_ ^= state_ >> 27;
    return state_ * 0x2545F4914F6CDD1Dull;
  }

  // Uniform integer in [lo, hi], both inclusive.
  i64 uniform(i64 lo, i64 hi) {
    const u64 span = static_cast<u64>(hi - lo) + 1;
    return lo + static_cast<i64>(next() % span);
  }

  // Uniform real in [0, 1).
  double unit() { return static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0); }

  // TPC-C clause 2.1.6: NURand(A, x, y) with run constant C.
  i64 nurand(i64 a, i64 x, i64 y, i64 c) {
    return (((uniform(0, a) | uniform(x, y)) + c) % (y - x + 1)) + x;
  }

  // Random alphanumeric string with length in [min_len, max_len] into buf,
  // zero-padded to capacity. Returns the length written.
  size_t astring(char* buf, size_t capacity, size_t min_len, size_t max_len);
  // Random numeric string of exactly len digits.
  void nstring(char* buf, size_t len);

 private:
  u64 state_;
};

}  // namespace dbrepro
