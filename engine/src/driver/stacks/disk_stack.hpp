#pragma once
// E5's stacks: a full transactional engine (locking, latching, an in-memory
// log that is never flushed: the study is about the page cache) whose pages
// live in a database file behind the disk-backed pool, one stack per
// replacement policy, and one that records the page reference string.
#include "cache/policies.hpp"
#include "driver/run_stack.hpp"

namespace dbrepro::tpcc {

template <class Policy, class Trace = NoTrace>
using DiskStack = Stack<IntegerKeyCompare, NeverFlush, MainLogOn, PageLsn, LockingOn, Latching, DirectoryCached,
                        PageAccessDisk<Policy, Trace>, SessionsPerTxn>;

// The reference string does not depend on the policy: one recording stack.
using DiskTraceStack = DiskStack<cache::Fifo, RecordTrace>;

extern template RunResult run_stack<DiskStack<cache::Lru>>(const RunConfig&, const ProgressFn&);
extern template RunResult run_stack<DiskStack<cache::Fifo>>(const RunConfig&, const ProgressFn&);
extern template RunResult run_stack<DiskStack<cache::Clock>>(const RunConfig&, const ProgressFn&);
extern template RunResult run_stack<DiskStack<cache::Sieve>>(const RunConfig&, const ProgressFn&);
extern template RunResult run_stack<DiskStack<cache::S3Fifo>>(const RunConfig&, const ProgressFn&);
extern template RunResult run_stack<DiskStack<cache::TwoQ>>(const RunConfig&, const ProgressFn&);
extern template RunResult run_stack<DiskStack<cache::Soqol>>(const RunConfig&, const ProgressFn&);
extern template RunResult run_stack<DiskTraceStack>(const RunConfig&, const ProgressFn&);

}  // namespace dbrepro::tpcc
