#pragma once
// Every stack a TPC-C run can pick: the one list. The driver maps a name to
// its compiled type (driver/tpcc/with_stack.hpp); Python reads the list through
// `_engine.stacks()` (the API's choices, the CLI's, the workflow's checks), so
// no other file spells it out. A ladder step is one row of stack/ladder.hpp;
// another stack is one row here, its type in with_stack.hpp and one
// translation unit under driver/tpcc/stacks/.
#include <array>
#include <stdexcept>
#include <string>

#include "stack/ladder.hpp"

namespace dbrepro::tpcc {

struct StackInfo {
  const char* name;
  int step;           // E1's ladder step (0..11; 11 is the optimal kernel), -1 outside the ladder
  bool concurrent;    // runs more than one terminal (it has locking, latching and the main log)
  bool disk;          // E5: pages in a file behind a pool (cache_policy, pool_fraction, data_dir, trace)
  bool metered;       // per-phase counters are possible (meter "perf")
  const char* study;  // the study it serves
  const char* summary;
};

// The bare stack, the ladder's steps (stack/ladder.hpp, one row each), E5's disk stack.
inline constexpr std::array<StackInfo, kLadderSteps + 2> kStacks = [] {
  std::array<StackInfo, kLadderSteps + 2> rows{};
  rows.front() = {"bare", -1, false, false, true, "-", "storage only (pages, B+trees, catalog), every removable component removed"};
  for (const LadderStepInfo& l : kLadder)
    rows[1 + l.step] = {l.name, l.step, l.concurrent, false, l.stack_owner >= 0, "looking_glass", l.summary};
  rows.back() = {"disk", -1, true, true, false, "fifo_cache",
                 "E5: a transactional engine whose pages live in a file behind a pool"};
  return rows;
}();

inline std::string stack_list() {
  std::string out;
  for (const StackInfo& s : kStacks) out += (out.empty() ? "" : ", ") + std::string(s.name);
  return out;
}

// The stack's row; throws naming the allowed stacks. "step11" is the optimal kernel's other name.
inline const StackInfo& find_stack(const std::string& name) {
  const std::string canonical = name == "step11" ? "optimal" : name;
  for (const StackInfo& s : kStacks)
    if (canonical == s.name) return s;
  throw std::invalid_argument("stack: invalid value '" + name + "' (allowed: " + stack_list() + ")");
}

// The ladder step of a stack name ("step3" -> 3, "optimal" -> 11), or -1 outside the ladder.
inline int stack_step(const std::string& stack) { return find_stack(stack).step; }

static_assert([] {
  for (int step = 0; step < kLadderSteps; ++step) {
    int rows = 0;
    for (const StackInfo& s : kStacks) rows += s.step == step;
    if (rows != 1) return false;
  }
  return true;
}(), "every ladder step has exactly one stack");

}  // namespace dbrepro::tpcc
