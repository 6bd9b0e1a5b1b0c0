// E5: the disk-backed stack that records its page reference string, compiled on its own.
#include "driver/tpcc/stacks/disk_stack.hpp"

namespace dbrepro::tpcc {
template RunResult run_stack<DiskTraceStack>(const RunConfig&, const ProgressFn&);
}  // namespace dbrepro::tpcc
