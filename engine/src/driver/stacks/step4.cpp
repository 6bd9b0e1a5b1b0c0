// E1 ladder step 4, compiled on its own (see driver/run_stack.hpp).
#include "driver/run_stack.hpp"

namespace dbrepro::tpcc {
template RunResult run_stack<Step4>(const RunConfig&, const ProgressFn&);
}  // namespace dbrepro::tpcc
