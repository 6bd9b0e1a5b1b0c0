#pragma once
// TPC-C's value generators: C_LAST syllables (clause 4.3.2.3), the NURand
// run-time constants (clause 2.1.6) and the "ORIGINAL" data strings.
#include <cstring>

#include "common/random.hpp"

namespace dbrepro::tpcc {

// C_LAST from a number 0..999: three syllables, one per decimal digit.
// Writes into out[16], zero-padded; returns the length.
size_t make_last_name(u32 number, char* out);

// The constants C of NURand(255, ...), NURand(1023, ...), NURand(8191, ...).
// The run's C_LAST constant differs from the load's as clause 2.1.6.1 requires.
struct NURandConstants {
  i64 c_last = 0;
  i64 c_id = 0;
  i64 ol_i_id = 0;

  static NURandConstants for_load(Random& rng);
  static NURandConstants for_run(const NURandConstants& load, Random& rng);
};

// A random string of [min_len, max_len] chars, 10% of which contain
// "ORIGINAL" at a random position (I_DATA, S_DATA: clause 4.3.3.1).
void make_data_with_original(Random& rng, char* out, size_t capacity, size_t min_len, size_t max_len);

// Zip code: 4 random digits followed by "11111".
void make_zip(Random& rng, char* out9);

}  // namespace dbrepro::tpcc
