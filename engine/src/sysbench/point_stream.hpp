#pragma once
// E2's one workload definition: which keys each client thread's
// select_random_points query asks for. The model's clients draw them here;
// the real MariaDB's sysbench clients draw the same keys from the Lua script
// dbrepro.key_cache_workload writes from the same rules (its template,
// bindings/dbrepro/data/select_points.lua.in, names each step it shares with
// this file). For one seed, thread and settings both give the same points.
//
// What it mirrors:
//  - The article's test, sysbench 0.5's tests/db/select_random_points.lua
//    (written for MariaDB's key_cache_segments): the table's k is the row
//    number (its prepare inserts k = i, so each point matches one row), and
//    thread `tid` of T draws its P points with sb_rand(N/T * tid,
//    N/T * (tid + 1)): each thread in its own slice of the key range, so
//    that the threads' points never overlap.
//  - sysbench 1.0.20 (Debian's; /usr/share/sysbench/select_random_points.lua)
//    keeps the per-thread slices (rmin = N/T * tid, rmax = rmin + N/T) but
//    prepares the table with oltp_common, where k = sb_rand(1, N): several
//    rows per key in a dense band, most points outside it. We keep the
//    article's k = id.
//  - sysbench's default --rand-type, "special" in 0.5 and 1.0 (iter 12,
//    pct 1, res 75): three draws in four fall uniformly into the middle 1% of
//    the slice, the rest follow the mean of 12 uniform draws over it; and
//    "uniform" (--rand-type=uniform), each key of the slice alike, the
//    index-bound case where the key cache's mutex is most of the work.
// The generator is ours, not sysbench's: a 32-bit xorshift (Marsaglia 2003),
// which LuaJIT's 32-bit `bit` library computes exactly, so that both engines
// draw the same keys; integer arithmetic only (every value below 2^53).
#include <algorithm>
#include <vector>

#include "common/types.hpp"
#include "sysbench/distribution.hpp"

namespace dbrepro::sysbench {

// sysbench's --rand-spec-* defaults (0.5 and 1.0).
inline constexpr u64 kSpecIter = 12, kSpecPct = 1, kSpecRes = 75;

class PointRng {
 public:
  // A nonzero state from the seed's low 32 bits and the thread (< 2^15).
  PointRng(u64 seed, u32 thread) {
    state_ = static_cast<u32>(seed) ^ ((thread + 1u) * 0x10001u);
    if (state_ == 0) state_ = 0x9E3779B9u;
  }
  u32 next() {
    state_ ^= state_ << 13;
    state_ ^= state_ >> 17;
    state_ ^= state_ << 5;
    return state_;
  }
  u64 below(u64 n) { return next() % n; }  // n >= 1; the bias is at most n / 2^32

 private:
  u32 state_;
};

// Thread `thread` of `threads`'s slice of 0..rows: [rows*tid/T, rows*(tid+1)/T].
struct KeySlice {
  u64 lo = 0, hi = 0;
};
inline KeySlice thread_slice(u64 rows, u32 thread, u32 threads) {
  return {rows * thread / threads, rows * (thread + 1) / threads};
}

// One key of [slice.lo, slice.hi] as sysbench's sb_rand would draw it.
inline u64 draw_point(PointRng& rng, KeyDistribution distribution, KeySlice slice) {
  const u64 t = slice.hi - slice.lo;
  if (distribution == KeyDistribution::kUniform) return slice.lo + rng.below(t + 1);
  if (t == 0) return slice.lo;
  if (rng.below(100) >= kSpecRes) {  // the bell: the mean of kSpecIter uniform draws
    u64 sum = 0;
    for (u64 i = 0; i < kSpecIter; ++i) sum += rng.below(t);
    return slice.lo + sum / kSpecIter;
  }
  const u64 band = std::max<u64>(1, t * kSpecPct / 100);  // the hot band at the slice's middle
  return slice.lo + t / 2 - t * kSpecPct / 200 + rng.below(band);
}

// One client thread's stream of queries: P points per query, from its slice.
class PointStream {
 public:
  PointStream(u64 seed, u32 thread, u32 threads, u64 rows, KeyDistribution distribution, u32 points)
      : rng_(seed, thread), slice_(thread_slice(rows, thread, threads)), distribution_(distribution),
        points_(points) {}

  const std::vector<u32>& next() {
    for (auto& p : points_) p = static_cast<u32>(draw_point(rng_, distribution_, slice_));
    return points_;
  }

 private:
  PointRng rng_;
  KeySlice slice_;
  KeyDistribution distribution_;
  std::vector<u32> points_;
};

}  // namespace dbrepro::sysbench
