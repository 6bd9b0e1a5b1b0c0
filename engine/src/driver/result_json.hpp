#pragma once
// The one serialisation of a run's result, shared by the native driver (which
// prints it) and the Python bindings (which parse it into a dict).
#include <string>

#include "driver/build_info.hpp"
#include "driver/tpcc/run_result.hpp"

namespace dbrepro {

std::string to_json(const tpcc::RunResult& result);
std::string to_json(const BuildInfo& info);

}  // namespace dbrepro
