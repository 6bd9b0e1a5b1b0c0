// The bare paged engine with either node search (see driver/tpcc/run_stack.hpp).
#include "driver/tpcc/run_stack.hpp"

namespace dbrepro::tpcc {
template RunResult run_stack<BareStack<GenericKeyCompare>>(const RunConfig&, const ProgressFn&);
template RunResult run_stack<BareStack<IntegerKeyCompare>>(const RunConfig&, const ProgressFn&);
}  // namespace dbrepro::tpcc
