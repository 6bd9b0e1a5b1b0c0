#pragma once
// The distributions sysbench draws "random" integers from (--rand-type).
// The article ran sysbench 0.5, whose default is "special": (100 - res)% of
// the values follow a bell curve over the whole range (the mean of `iter`
// uniform draws) and res% fall uniformly into a band of pct% of the range at
// its middle. With the defaults (iter 12, pct 1, res 75) three values in four
// hit the middle 1% of keys. Both the table's k column and the query's points
// are drawn this way, so a point in the band matches dozens of rows.
#include <algorithm>
#include <stdexcept>
#include <string>

#include "common/random.hpp"

namespace dbrepro::sysbench {

// kIdentity is for the table's k only: k = id, as the article's sysbench 0.5
// select_random_points.lua prepared it (one row per key).
enum class KeyDistribution : u32 { kUniform = 0, kSpecial = 1, kIdentity = 2 };

inline const char* distribution_name(KeyDistribution d) {
  return d == KeyDistribution::kSpecial ? "special" : d == KeyDistribution::kIdentity ? "id" : "uniform";
}

// How the table's k is drawn at load: id (the article's), special or uniform.
inline KeyDistribution parse_distribution(const std::string& name) {
  if (name == "special") return KeyDistribution::kSpecial;
  if (name == "uniform") return KeyDistribution::kUniform;
  if (name == "id") return KeyDistribution::kIdentity;
  throw std::invalid_argument("distribution: invalid value '" + name + "' (allowed: id, special, uniform)");
}

// How a query's points are drawn: special or uniform.
inline KeyDistribution parse_points_distribution(const std::string& name) {
  if (name == "special") return KeyDistribution::kSpecial;
  if (name == "uniform") return KeyDistribution::kUniform;
  throw std::invalid_argument("distributions: invalid value '" + name + "' (allowed: special, uniform)");
}

// sysbench 0.5's defaults for the special distribution.
struct SpecialParameters {
  u64 iter = 12;  // --rand-spec-iter
  u64 pct = 1;    // --rand-spec-pct: width of the hot band, % of the range
  u64 res = 75;   // --rand-spec-res: % of values that fall into the band
};

// A value in [1, n] (kIdentity draws as uniform: it is the table's rule, not a draw).
inline u32 draw_key(Random& rng, KeyDistribution distribution, u64 n, const SpecialParameters& p = {}) {
  if (distribution != KeyDistribution::kSpecial) return static_cast<u32>(rng.uniform(1, static_cast<i64>(n)));
  if (rng.uniform(1, 100) > static_cast<i64>(p.res)) {
    u64 sum = 0;
    for (u64 i = 0; i < p.iter; ++i) sum += static_cast<u64>(rng.uniform(0, static_cast<i64>(n) - 1));
    return static_cast<u32>(1 + sum / p.iter);
  }
  const u64 band = std::max<u64>(1, n * p.pct / 100);
  return static_cast<u32>(1 + n / 2 - n * p.pct / 200 + static_cast<u64>(rng.uniform(0, static_cast<i64>(band) - 1)));
}

}  // namespace dbrepro::sysbench
