#pragma once
// The replacement "policy" of a cache that holds every page it is given (E1's
// pool, sized to the database as in the looking-glass study): nothing is ever
// chosen to leave, and a full cache is an error.
#include <stdexcept>

#include "common/types.hpp"

namespace dbrepro::cache {

struct NoEviction {
  static constexpr const char* kName = "none";
  explicit NoEviction(u32) {}
  void hit(u32) {}
  void miss(u64) {}
  template <class Claim>
  u32 evict(Claim&&) {
    throw std::runtime_error("page cache: full, and its configuration never evicts");
  }
  void insert(u32, u64) {}
  u64 hit_locks() const { return 0; }
};

}  // namespace dbrepro::cache
