#pragma once
// Clocks for the engine scheduler: the real one, and a tick clock for tests
// (each reading advances it by one), so switch counts can be checked exactly.
#include <time.h>

#include <chrono>

#include "common/types.hpp"

namespace dbrepro::sched {

struct SteadyClock {
  i64 now() const {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
};

struct TickClock {
  i64 ticks = 0;
  i64 now() { return ticks++; }
};

inline double thread_cpu_seconds() {
  timespec ts{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

}  // namespace dbrepro::sched
