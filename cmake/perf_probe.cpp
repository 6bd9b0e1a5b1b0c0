// Configure-time probe (cmake/PerfMeter.cmake): can this machine count
// user-space instructions? It compiles the engine's own probe, so configure
// and a run agree. Prints "" or why not; exits 0 only where it can.
#include <cstdio>

#include "measure/perf_counters.cpp"

int main() {
  const std::string why = dbrepro::PerfCounters::probe();
  std::printf("%s", why.c_str());
  return why.empty() ? 0 : 1;
}
