#pragma once
// User-space instruction and cycle counters of the calling thread, read as
// one perf_event group (both values from the same moment). Where the kernel
// offers no PMU (many VMs: ENOENT), open() fails and error() says why; the
// callers then count with callgrind instead.
#include <string>

#include "common/types.hpp"

namespace dbrepro {

struct CounterValues {
  i64 instructions = 0;
  i64 cycles = 0;
};

class PerfCounters {
 public:
  PerfCounters() = default;
  ~PerfCounters();
  PerfCounters(const PerfCounters&) = delete;
  PerfCounters& operator=(const PerfCounters&) = delete;

  // Opens and enables the group; false (and error()) if the kernel refuses.
  bool open();
  bool is_open() const { return leader_fd_ >= 0; }
  const std::string& error() const { return error_; }

  CounterValues read() const;

  // Measures what one read() itself costs (the minimum over many
  // back-to-back pairs), as the looking-glass authors did for PAPI.
  void calibrate(int rounds = 1000);
  const CounterValues& read_cost() const { return read_cost_; }

  // Can this process count user-space instructions? ("" if yes, else why not.)
  static std::string probe();

 private:
  int leader_fd_ = -1;
  int cycles_fd_ = -1;
  std::string error_;
  CounterValues read_cost_{};
};

}  // namespace dbrepro
