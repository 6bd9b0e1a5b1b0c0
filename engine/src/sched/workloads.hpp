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

#include "buffer/buffer_pool.hpp"
#include "common/types.hpp"
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

// Workload 2's table: pages of a buffer pool filled with 8-byte rows (the
// article's table cached in the block cache). Each session scans its own
// table: a private working set, so a switch displaces the cached data of the
// session switched out (the refill a longer quantum saves); one shared table
// would let the sessions warm the caches for each other.
class ScanTable {
 public:
  using Pool = BufferPool<Latching>;  // sessions on several CPUs fix pages at once

  ScanTable(u64 bytes, u32 page_size) : pool_(page_size, std::max<u64>(1, bytes / page_size)) {
    const size_t pages = std::max<u64>(1, bytes / page_size);
    u64 row = 0;
    for (size_t p = 0; p < pages; ++p) {
      const PageId pid = pool_.allocate();
      std::byte* page = pool_.fix(pid, LatchMode::kExclusive);
      for (u32 off = 0; off + sizeof(u64) <= page_size; off += sizeof(u64), ++row) std::memcpy(page + off, &row, sizeof row);
      pool_.unfix(pid, page, LatchMode::kExclusive);
    }
  }
  Pool& pool() { return pool_; }
  size_t pages() const { return pool_.page_count(); }
  u64 bytes() const { return pool_.bytes(); }

 private:
  Pool pool_;
};

// Workload 2 (memory-bound): `passes` full scans summing every row. The
// quantum check sits between pages, so no fiber yields with a latch held.
template <class Check, class Unit = NoUnit>
u64 scan_session(ScanTable& table, u32 passes, Check&& check, Unit&& unit = {}) {
  auto& pool = table.pool();
  const u32 rows_per_page = pool.page_size() / sizeof(u64);
  u64 sum = 0;
  u64 pages_done = 0;
  for (u32 pass = 0; pass < passes; ++pass) {
    for (PageId pid = 0; pid < table.pages(); ++pid) {
      const std::byte* page = pool.fix(pid, LatchMode::kShared);
      for (u32 r = 0; r < rows_per_page; ++r) {
        u64 value;
        std::memcpy(&value, page + r * sizeof(u64), sizeof value);
        sum += value;
      }
      pool.unfix(pid, const_cast<std::byte*>(page), LatchMode::kShared);
      check();
      if (++pages_done % kScanUnitPages == 0) unit();
    }
  }
  return sum;
}

}  // namespace dbrepro::sched
