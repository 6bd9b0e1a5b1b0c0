#pragma once
// What a context switch costs the session switched out and back in, measured
// while the sessions run: each session reads its own CPU clock and switch
// count after every unit of work (64 pages, 512 KiB, of the memory workload;
// 2^14 iterations of the CPU one: ~0.1 ms, short against a quantum) and fits
// the least-squares line
//   CPU time of a unit = a + b * switches inside the unit.
// b is the CPU time one switch adds to the session: the kernel's switch code
// charged to it plus refilling the caches and TLB the other sessions evicted
// (the cost the article says a longer quantum saves). Every unit does the same
// work, so a is that work and b what the switches add to it. Units are short so
// that a unit's own length hardly decides whether a switch falls in it (long
// units that ran slow for another reason would hold more switches and
// inflate b). Reading the two counters costs ~1 us per unit, in every run alike.
#include <tuple>
#include <utility>

#include "common/types.hpp"

namespace dbrepro::sched {

// Sums for the least-squares line through (switches, CPU seconds) points.
struct SwitchCostFit {
  u64 units = 0;
  double sum_x = 0, sum_y = 0, sum_xy = 0, sum_xx = 0;

  void add(double x, double y) {
    ++units;
    sum_x += x;
    sum_y += y;
    sum_xy += x * y;
    sum_xx += x * x;
  }
  void merge(const SwitchCostFit& o) {
    units += o.units;
    sum_x += o.sum_x;
    sum_y += o.sum_y;
    sum_xy += o.sum_xy;
    sum_xx += o.sum_xx;
  }
};

// Read reads (CPU seconds, switches) of the running session.
template <class Read>
class UnitMeter {
 public:
  explicit UnitMeter(Read read) : read_(std::move(read)) { std::tie(cpu_, switches_) = read_(); }

  void operator()() {  // one unit of work is done
    const auto [cpu, switches] = read_();
    fit_.add(static_cast<double>(switches - switches_), cpu - cpu_);
    cpu_ = cpu;
    switches_ = switches;
  }
  const SwitchCostFit& fit() const { return fit_; }

 private:
  Read read_;
  double cpu_ = 0;
  u64 switches_ = 0;
  SwitchCostFit fit_;
};

}  // namespace dbrepro::sched
