#pragma once
// The stacks of E1's removal ladder (Figure 7 of "OLTP through the looking
// glass"): step 0 has every component, each later step removes one more, in
// the paper's order. Step 8 ("small page") changes the page size, a run-time
// parameter: steps 8-10 default to 32 KB pages. Step 11, the optimal kernel,
// is a different engine altogether (kernel/mem_engine.hpp).
#include <array>
#include <tuple>
#include <type_traits>
#include <utility>

#include "stack/components.hpp"

namespace dbrepro {

using GK = GenericKeyCompare;
using IK = IntegerKeyCompare;

// A string as a template argument (a row's texts).
template <size_t N>
struct Text {
  char chars[N]{};
  constexpr Text(const char (&s)[N]) {
    for (size_t i = 0; i < N; ++i) chars[i] = s[i];
  }
};

template <int Step>
struct SameStackAs {};  // the step runs step `Step`'s compiled stack (only a run-time default differs)
struct OptimalKernel {};  // not a Stack: kernel/mem_engine.hpp

// One step: its stack name, the paper's name of the switch it applies, the
// component group of Figure 8, its default page size, a summary, its stack.
template <Text Name, Text Label, Text Component, u32 PageSize, Text Summary, class S>
struct LadderRow {
  static constexpr const char* kName = Name.chars;
  static constexpr const char* kLabel = Label.chars;
  static constexpr const char* kComponent = Component.chars;
  static constexpr u32 kPageSize = PageSize;
  static constexpr const char* kSummary = Summary.chars;
  using Stack = S;
};

// The ladder, one row per step: adding a step is a row here (the build
// generates its translation unit from driver/tpcc/stacks/ladder_step.cpp.in).
using Ladder = std::tuple<
    //        stack     label          component         page   summary
    LadderRow<"step0", "full stack", "-", 8192, "E1's full stack",
              //    keys disk log     main log    LSN      locking     latching    directory                page access           sessions
              Stack<GK, FlushToFile, MainLogOn, PageLsn, LockingOn, Latching, DirectoryPerTransaction, PageAccessBufferPool, SessionsPerTxn>>,
    LadderRow<"step1", "Btree keys", "btree_keys", 8192, "E1 ladder: integer B-tree keys",
              Stack<IK, FlushToFile, MainLogOn, PageLsn, LockingOn, Latching, DirectoryPerTransaction, PageAccessBufferPool, SessionsPerTxn>>,
    LadderRow<"step2", "disk log", "logging", 8192, "E1 ladder: - disk log",
              Stack<IK, NeverFlush, MainLogOn, PageLsn, LockingOn, Latching, DirectoryPerTransaction, PageAccessBufferPool, SessionsPerTxn>>,
    LadderRow<"step3", "main log", "logging", 8192, "E1 ladder: - main log",
              Stack<IK, NeverFlush, MainLogOff, PageLsn, LockingOn, Latching, DirectoryPerTransaction, PageAccessBufferPool, SessionsPerTxn>>,
    LadderRow<"step4", "LSN", "logging", 8192, "E1 ladder: - LSN",
              Stack<IK, NeverFlush, MainLogOff, NoLsn, LockingOn, Latching, DirectoryPerTransaction, PageAccessBufferPool, SessionsPerTxn>>,
    LadderRow<"step5", "locking", "locking", 8192, "E1 ladder: - locking",
              Stack<IK, NeverFlush, MainLogOff, NoLsn, LockingOff, Latching, DirectoryPerTransaction, PageAccessBufferPool, SessionsPerTxn>>,
    LadderRow<"step6", "latching", "latching", 8192, "E1 ladder: - latching",
              Stack<IK, NeverFlush, MainLogOff, NoLsn, LockingOff, NoLatching, DirectoryPerTransaction, PageAccessBufferPool, SessionsPerTxn>>,
    LadderRow<"step7", "dir lookup", "buffer_manager", 8192, "E1 ladder: - directory lookup",
              Stack<IK, NeverFlush, MainLogOff, NoLsn, LockingOff, NoLatching, DirectoryCached, PageAccessBufferPool, SessionsPerTxn>>,
    // Step 8 ("small page") changes the page size, a run-time parameter: steps 8-10 default to 32 KB pages.
    LadderRow<"step8", "small page", "buffer_manager", 32768, "E1 ladder: - small page (32 KB pages)", SameStackAs<7>>,
    LadderRow<"step9", "page access", "buffer_manager", 32768, "E1 ladder: - page access",
              Stack<IK, NeverFlush, MainLogOff, NoLsn, LockingOff, NoLatching, DirectoryCached, PageAccessDirect, SessionsPerTxn>>,
    // Figure 8 counts "Xactions" with the buffer manager.
    LadderRow<"step10", "Xactions", "buffer_manager", 32768, "E1 ladder: - transactions (one session)",
              Stack<IK, NeverFlush, MainLogOff, NoLsn, LockingOff, NoLatching, DirectoryCached, PageAccessDirect, SessionsSingle>>,
    // Step 11, the optimal kernel, is a different engine altogether.
    LadderRow<"optimal", "optimal", "remaining", 32768, "E1's hand-built in-memory B-tree kernel", OptimalKernel>>;

inline constexpr int kLadderSteps = static_cast<int>(std::tuple_size_v<Ladder>);  // 0..11
inline constexpr int kOptimalStep = kLadderSteps - 1;
static_assert(std::is_same_v<std::tuple_element_t<kOptimalStep, Ladder>::Stack, OptimalKernel>,
              "the optimal kernel is the ladder's last step");

namespace detail {
template <int I, class S = typename std::tuple_element_t<I, Ladder>::Stack>
struct OwnerStep {
  static constexpr int value = I;
};
template <int I, int J>
struct OwnerStep<I, SameStackAs<J>> {
  static_assert(J < I, "SameStackAs names an earlier step");
  static constexpr int value = OwnerStep<J>::value;
};
}  // namespace detail

// The step whose compiled stack step I runs (itself, or the SameStackAs step).
template <int I>
inline constexpr int kStackOwner = detail::OwnerStep<I>::value;
// Step I's stack type (steps 0..10).
template <int I>
using LadderStack = typename std::tuple_element_t<kStackOwner<I>, Ladder>::Stack;

// Names of the steps' stacks (the tests and the durable run use them).
using Step0 = LadderStack<0>;
using Step1 = LadderStack<1>;
using Step2 = LadderStack<2>;
using Step3 = LadderStack<3>;
using Step4 = LadderStack<4>;
using Step5 = LadderStack<5>;
using Step6 = LadderStack<6>;
using Step7 = LadderStack<7>;
using Step8 = LadderStack<8>;
using Step9 = LadderStack<9>;
using Step10 = LadderStack<10>;

struct LadderStepInfo {
  int step;
  const char* label;      // the paper's name of the switch this step applies
  const char* component;  // the component group of Figure 8
  u32 page_size;          // default page size of the step
  const char* name;       // its stack's name
  const char* summary;
  int stack_owner;        // the step whose compiled stack it runs (-1: the optimal kernel)
  bool concurrent;        // runs more than one terminal (locking, latching and the main log)
};

namespace detail {
template <int I>
constexpr LadderStepInfo step_info() {
  using Row = std::tuple_element_t<I, Ladder>;
  if constexpr (std::is_same_v<typename Row::Stack, OptimalKernel>) {
    return {I, Row::kLabel, Row::kComponent, Row::kPageSize, Row::kName, Row::kSummary, -1, false};
  } else {
    return {I,           Row::kLabel,   Row::kComponent, Row::kPageSize, Row::kName,
            Row::kSummary, kStackOwner<I>, kConcurrentStack<LadderStack<I>>};
  }
}
template <size_t... I>
constexpr std::array<LadderStepInfo, sizeof...(I)> ladder_info(std::index_sequence<I...>) {
  return {step_info<static_cast<int>(I)>()...};
}
}  // namespace detail

inline constexpr std::array<LadderStepInfo, kLadderSteps> kLadder =
    detail::ladder_info(std::make_index_sequence<kLadderSteps>{});

}  // namespace dbrepro
