#pragma once
// How this engine binary was built: recorded in every raw run.
#include <string>

namespace dbrepro {

struct BuildInfo {
  std::string compiler;
  std::string cxx_flags;
  std::string build_type;
  std::string cxx_standard;
  std::string version;
  bool perf_meter = false;      // E1's stacks compiled with the perf_event meter (cmake/PerfMeter.cmake)
  std::string perf_meter_why;   // why it is or is not
};

BuildInfo build_info();

}  // namespace dbrepro
