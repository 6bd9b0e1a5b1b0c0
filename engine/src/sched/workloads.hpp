#pragma once
// E4's session workloads. Each calls check() at a cheap point of its loop
// (every kCpuCheckEvery iterations, after every page): the engine scheduler
// uses it to switch fibers when a quantum expires; under the OS scheduler it
// is a no-op and the kernel preempts wherever it likes. Each calls unit()
// after every unit of equal work (kCpuUnit iterations, kScanUnitPages pages),
// where the session's switch cost is metered (unit_meter.hpp); units are short
// against a quantum, so most hold no switch and few hold more than one.
#include <cmath>
#include <cstring>
#include <memory>
#include <type_traits>

#include "buffer/page_guard.hpp"
#include "common/types.hpp"
#include "latch/holder_preemption.hpp"
#include "latch/latch.hpp"

namespace dbrepro::sched {

enum class WorkloadKind : u8 { kCpu, kMemory };

inline constexpr u64 kCpuCheckEvery = 4096;
inline constexpr u64 kCpuUnit = 4 * kCpuCheckEvery;
inline constexpr u64 kScanUnitPages = 64;

struct NoUnit {
  void operator()() const {}
};

// Workload 1 (register-bound): v = sqrt(v + f) for f = 1..n.
template <class Check, class Unit = NoUnit>
double cpu_session(u64 n, Check&& check, Unit&& unit = {}) {
  double v = 0.0;
  for (u64 f = 1; f <= n; ++f) {
    v = std::sqrt(v + static_cast<double>(f));
    if (f % kCpuCheckEvery == 0) {
      check();
      if (f % kCpuUnit == 0) unit();
    }
  }
  return v;
}

// Workload 2 (memory-bound): `passes` full scans of the one shared table
// (sched/shared_table.hpp), summing every row. Each page is fixed and unfixed
// through the cache as an Oracle full scan gets each buffer: the chain's latch
// to pin it, the rows read with the latch released, the latch again to unpin.
// The quantum check sits between pages, so no fiber yields with a latch
// held; after it the session's latch counters are this thread's again (a
// fiber may have been switched in).
template <class Table, class Check, class Unit = NoUnit>
u64 scan_session(Table& table, u32 passes, LatchCounters& counters, Check&& check, Unit&& unit = {}) {
  auto& cache = table.cache();
  const u32 rows_per_page = cache.page_size() / sizeof(u64);
  u64 sum = 0;
  u64 pages_done = 0;
  attach_latch_counters(&counters);
  for (u32 pass = 0; pass < passes; ++pass) {
    for (PageId pid = 0; pid < table.pages(); ++pid) {
      {
        const SharedGuard<std::remove_reference_t<decltype(cache)>> page(cache, pid);
        for (u32 r = 0; r < rows_per_page; ++r) {
          u64 value;
          std::memcpy(&value, page.page() + r * sizeof(u64), sizeof value);
          sum += value;
        }
      }
      check();
      attach_latch_counters(&counters);
      if (++pages_done % kScanUnitPages == 0) unit();
    }
  }
  attach_latch_counters(nullptr);
  return sum;
}

}  // namespace dbrepro::sched
