#pragma once
// Marks for callgrind: start instrumenting only once the database is
// loaded (run valgrind with --instr-atstart=no), so loading runs at
// valgrind's uninstrumented speed. Outside valgrind the marks are a few
// no-op instructions; without the header they are nothing.
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define DBREPRO_CALLGRIND_START() CALLGRIND_START_INSTRUMENTATION
#else
#define DBREPRO_CALLGRIND_START() \
  do {                            \
  } while (0)
#endif
