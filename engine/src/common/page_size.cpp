#include "common/page_size.hpp"

#include <stdexcept>
#include <string>

namespace dbrepro {

void page_size_error(const char* name, u64 size, u64 lo, u64 hi, const char* also) {
  const std::string range = hi == kNoMaxPageSize ? ">= " + std::to_string(lo)
                                                 : "in " + std::to_string(lo) + ".." + std::to_string(hi);
  throw std::invalid_argument(std::string(name) + ": must be " + also + "a power of two " + range + ", got " +
                              std::to_string(size));
}

}  // namespace dbrepro
