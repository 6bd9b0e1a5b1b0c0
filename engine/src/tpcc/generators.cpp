#include "tpcc/generators.hpp"

namespace dbrepro::tpcc {

size_t make_last_name(u32 number, char* out) {
  static constexpr const char* kSyllables[] = {"BAR", "OUGHT", "ABLE", "PRI", "PRES",
                                               "ESE", "ANTI", "CALLY", "ATION", "EING"};
  std::memset(out, 0, 16);
  size_t len = 0;
  for (u32 digit : {number / 100, (number / 10) % 10, number % 10}) {
    const char* s = kSyllables[digit];
    const size_t n = std::strlen(s);
    std::memcpy(out + len, s, n);
    len += n;
  }
  return len;
}

NURandConstants NURandConstants::for_load(Random& rng) {
  return NURandConstants{rng.uniform(0, 255), rng.uniform(0, 1023), rng.uniform(0, 8191)};
}

NURandConstants NURandConstants::for_run(const NURandConstants& load, Random& rng) {
  NURandConstants run{0, rng.uniform(0, 1023), rng.uniform(0, 8191)};
  // |C_RUN - C_LOAD| in [65, 119], not 96 or 112 (clause 2.1.6.1).
  for (;;) {
    const i64 c = rng.uniform(0, 255);
    const i64 delta = c > load.c_last ? c - load.c_last : load.c_last - c;
    if (delta >= 65 && delta <= 119 && delta != 96 && delta != 112) {
      run.c_last = c;
      return run;
    }
  }
}

void make_data_with_original(Random& rng, char* out, size_t capacity, size_t min_len, size_t max_len) {
  const size_t len = rng.astring(out, capacity, min_len, max_len);
  if (rng.uniform(1, 10) == 1) {
    const size_t pos = static_cast<size_t>(rng.uniform(0, static_cast<i64>(len - 8)));
    std::memcpy(out + pos, "ORIGINAL", 8);
  }
}

void make_zip(Random& rng, char* out9) {
  rng.nstring(out9, 4);
  std::memcpy(out9 + 4, "11111", 5);
}

}  // namespace dbrepro::tpcc
