#pragma once
// The stacks of E1's removal ladder (Figure 7 of "OLTP through the looking
// glass"): step 0 has every component, each later step removes one more, in
// the paper's order. Step 8 ("small page") changes the page size, a run-time
// parameter: steps 8-10 default to 32 KB pages. Step 11, the optimal kernel,
// is a different engine altogether (kernel/mem_engine.hpp).
#include <array>

#include "stack/components.hpp"

namespace dbrepro {

using GK = GenericKeyCompare;
using IK = IntegerKeyCompare;

//                      keys disk log     main log    LSN      locking     latching    directory                page access           sessions
using Step0 = Stack<GK, FlushToFile, MainLogOn, PageLsn, LockingOn, Latching, DirectoryPerTransaction, PageAccessBufferPool, SessionsPerTxn>;
using Step1 = Stack<IK, FlushToFile, MainLogOn, PageLsn, LockingOn, Latching, DirectoryPerTransaction, PageAccessBufferPool, SessionsPerTxn>;
using Step2 = Stack<IK, NeverFlush, MainLogOn, PageLsn, LockingOn, Latching, DirectoryPerTransaction, PageAccessBufferPool, SessionsPerTxn>;
using Step3 = Stack<IK, NeverFlush, MainLogOff, PageLsn, LockingOn, Latching, DirectoryPerTransaction, PageAccessBufferPool, SessionsPerTxn>;
using Step4 = Stack<IK, NeverFlush, MainLogOff, NoLsn, LockingOn, Latching, DirectoryPerTransaction, PageAccessBufferPool, SessionsPerTxn>;
using Step5 = Stack<IK, NeverFlush, MainLogOff, NoLsn, LockingOff, Latching, DirectoryPerTransaction, PageAccessBufferPool, SessionsPerTxn>;
using Step6 = Stack<IK, NeverFlush, MainLogOff, NoLsn, LockingOff, NoLatching, DirectoryPerTransaction, PageAccessBufferPool, SessionsPerTxn>;
using Step7 = Stack<IK, NeverFlush, MainLogOff, NoLsn, LockingOff, NoLatching, DirectoryCached, PageAccessBufferPool, SessionsPerTxn>;
using Step8 = Step7;  // + 32 KB pages (run-time page size)
using Step9 = Stack<IK, NeverFlush, MainLogOff, NoLsn, LockingOff, NoLatching, DirectoryCached, PageAccessDirect, SessionsPerTxn>;
using Step10 = Stack<IK, NeverFlush, MainLogOff, NoLsn, LockingOff, NoLatching, DirectoryCached, PageAccessDirect, SessionsSingle>;

inline constexpr int kOptimalStep = 11;
inline constexpr int kLadderSteps = 12;  // 0..11

struct LadderStepInfo {
  int step;
  const char* label;      // the paper's name of the switch this step applies
  const char* component;  // the component group of Figure 8
  u32 page_size;          // default page size of the step
};

inline constexpr std::array<LadderStepInfo, kLadderSteps> kLadder = {{
    {0, "full stack", "-", 8192},
    {1, "Btree keys", "btree_keys", 8192},
    {2, "disk log", "logging", 8192},
    {3, "main log", "logging", 8192},
    {4, "LSN", "logging", 8192},
    {5, "locking", "locking", 8192},
    {6, "latching", "latching", 8192},
    {7, "dir lookup", "buffer_manager", 8192},
    {8, "small page", "buffer_manager", 32768},
    {9, "page access", "buffer_manager", 32768},
    {10, "Xactions", "buffer_manager", 32768},  // Figure 8 counts it with the buffer manager
    {11, "optimal", "remaining", 32768},
}};

}  // namespace dbrepro
