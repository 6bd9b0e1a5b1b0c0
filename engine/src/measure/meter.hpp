#pragma once
// Meters attribute hardware-counter deltas to phases. The engine opens a
// PhaseScope around every phase function; with NullMeter the scope is empty
// (zero instructions: the build counted by callgrind uses it), with
// PerfMeter it reads the counter group at entry and exit.
#include <array>

#include "measure/perf_counters.hpp"
#include "measure/phase.hpp"

namespace dbrepro {

struct NullMeter {
  static constexpr const char* kName = "none";
  void enter(Phase) {}
  void leave(Phase) {}
};

// Per-phase instruction and cycle totals from perf_event. Phases do not nest
// in the engine, so a scope's delta belongs to exactly one phase; the cost of
// one counter read (calibrated at start) is subtracted from every delta.
class PerfMeter {
 public:
  static constexpr const char* kName = "perf_event";

  explicit PerfMeter(PerfCounters& counters) : counters_(&counters) {}

  void enter(Phase) {
    ++reads_;
    start_ = counters_->read();
  }
  void leave(Phase phase) {
    const CounterValues end = counters_->read();
    ++reads_;
    PhaseTotals& t = totals_[static_cast<int>(phase)];
    t.instructions += end.instructions - start_.instructions - counters_->read_cost().instructions;
    t.cycles += end.cycles - start_.cycles - counters_->read_cost().cycles;
    ++t.calls;
  }

  struct PhaseTotals {
    i64 instructions = 0;
    i64 cycles = 0;
    u64 calls = 0;
  };
  const std::array<PhaseTotals, kPhaseCount>& totals() const { return totals_; }
  void reset() { totals_ = {}; }
  u64 reads() const { return reads_; }

 private:
  PerfCounters* counters_;
  CounterValues start_{};
  std::array<PhaseTotals, kPhaseCount> totals_{};
  u64 reads_ = 0;
};

template <class Meter>
class PhaseScope {
 public:
  PhaseScope(Meter& meter, Phase phase) : meter_(meter), phase_(phase) { meter_.enter(phase_); }
  ~PhaseScope() { meter_.leave(phase_); }
  PhaseScope(const PhaseScope&) = delete;
  PhaseScope& operator=(const PhaseScope&) = delete;

 private:
  Meter& meter_;
  Phase phase_;
};

}  // namespace dbrepro
