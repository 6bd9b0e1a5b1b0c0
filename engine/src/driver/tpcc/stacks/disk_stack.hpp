#pragma once
// E5's stacks: a full transactional engine (locking, latching, an in-memory
// log that is never flushed: the study is about the page cache) whose pages
// live in a database file behind the disk-backed pool, one stack per
// replacement policy, and one that records the page reference string.
#include "cache/policies.hpp"
#include "driver/tpcc/loaded_disk.hpp"
#include "driver/tpcc/run_stack.hpp"

namespace dbrepro::tpcc {

template <class Policy, class Trace = NoTrace>
using DiskStack = Stack<IntegerKeyCompare, NeverFlush, MainLogOn, PageLsn, LockingOn, Latching, DirectoryCached,
                        PageAccessDisk<Policy, Trace>, SessionsPerTxn>;

// The reference string does not depend on the policy: one recording stack.
using DiskTraceStack = DiskStack<cache::Fifo, RecordTrace>;

// One per policy, each in a translation unit the build generates from
// disk_policy.cpp.in (cache::Policies is the list).
template <size_t I>
RunResult run_disk_policy(const RunConfig& config, const ProgressFn& progress);
template <size_t I>
std::unique_ptr<LoadedDisk> load_disk_policy(const RunConfig& config);

extern template RunResult run_stack<DiskTraceStack>(const RunConfig&, const ProgressFn&);

}  // namespace dbrepro::tpcc
