#include "driver/build_info.hpp"

namespace dbrepro {

BuildInfo build_info() {
  return BuildInfo{DBREPRO_COMPILER, DBREPRO_CXX_FLAGS, DBREPRO_BUILD_TYPE, std::to_string(__cplusplus / 100),
                   DBREPRO_VERSION};
}

}  // namespace dbrepro
