#pragma once
// Latency histogram with ~3% wide logarithmic buckets: constant memory however
// long the run, cheap to merge across threads.
#include <array>
#include <cmath>

#include "common/types.hpp"

namespace dbrepro::keycache_driver {

class LatencyHistogram {
 public:
  static constexpr int kPerE = 32;  // buckets per factor of e
  static constexpr int kBuckets = 32 * 30;

  void add(u64 nanos) {
    const int b = static_cast<int>(std::log(static_cast<double>(nanos) + 1.0) * kPerE);
    ++counts_[b < kBuckets ? b : kBuckets - 1];
    ++total_;
    if (nanos > max_) max_ = nanos;
  }
  void merge(const LatencyHistogram& other) {
    for (int i = 0; i < kBuckets; ++i) counts_[i] += other.counts_[i];
    total_ += other.total_;
    if (other.max_ > max_) max_ = other.max_;
  }
  // Upper edge of the bucket holding quantile q, in nanoseconds.
  double quantile(double q) const {
    if (total_ == 0) return 0;
    const u64 rank = static_cast<u64>(std::ceil(q * static_cast<double>(total_)));
    u64 seen = 0;
    for (int i = 0; i < kBuckets; ++i) {
      seen += counts_[i];
      if (seen >= rank && counts_[i] > 0) return std::exp((i + 1) / static_cast<double>(kPerE)) - 1.0;
    }
    return static_cast<double>(max_);
  }
  u64 max() const { return max_; }

 private:
  std::array<u64, kBuckets> counts_{};
  u64 total_ = 0;
  u64 max_ = 0;
};

}  // namespace dbrepro::keycache_driver
