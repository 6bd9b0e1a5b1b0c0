#pragma once
// Engines for the TPC-C tests: any stack or the optimal kernel, with a log
// file for stacks whose log flushes at commit.
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <type_traits>

#include "common/temp_file.hpp"
#include "kernel/mem_engine.hpp"
#include "stack/engine.hpp"

namespace dbrepro::test {

// The only engine without a catalog (HISTORY rows are kept but not readable).
template <class E>
constexpr bool kHasCatalog = requires(E& e) { e.catalog(); };

// A log file for a stack whose log flushes at commit, removed afterwards.
struct TempLog {
  TempLog() : path(make_temp_file(temp_base(), "dbrepro-test-log-")) {}
  ~TempLog() { ::unlink(path.c_str()); }
  std::string path;
};

template <class E>
E make_engine(u32 page_size, const std::string& log_path) {
  if constexpr (std::is_same_v<E, MemEngine>) {
    return E();
  } else {
    EngineOptions options;
    options.page_size = page_size;
    options.log_path = log_path;
    return E(options);
  }
}

}  // namespace dbrepro::test
