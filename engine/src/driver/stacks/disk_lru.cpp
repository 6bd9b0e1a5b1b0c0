// E5: the disk-backed stack with the lru policy, compiled on its own (see driver/stacks/disk_stack.hpp).
#include "driver/stacks/disk_stack.hpp"

namespace dbrepro::tpcc {
template RunResult run_stack<DiskStack<cache::Lru>>(const RunConfig&, const ProgressFn&);
}  // namespace dbrepro::tpcc
