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
};

BuildInfo build_info();

}  // namespace dbrepro
