// The holder-preemption counter of latch/holder_preemption.hpp: a holder forced
// off its CPU while it holds the latch is counted, and one that is not, even
// when it holds the latch as long, is not. The force is the kernel's round
// robin: two SCHED_RR threads of one priority pinned to one CPU; the holder
// spins holding the latch until the other has run, which it can only do when
// the holder's timeslice ends and the kernel switches it out. No timing is
// asserted: the counts are what the scheduler's rules make them. SCHED_RR
// needs root (or CAP_SYS_NICE): without it the tests skip and say so. ctest
// runs tests in parallel processes: each test here holds a file lock, so no
// other test's real-time threads share the CPU with its holder.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <pthread.h>
#include <sched.h>
#include <sys/file.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <functional>

#include "latch/blocking_latches.hpp"
#include "latch/holder_preemption.hpp"

namespace dbrepro {
namespace {

using Latch = HolderPreemptionLatch<SpinNapLatch>;

// One of these tests at a time on the machine, across ctest's processes.
class SchedHolderPreemption : public ::testing::Test {
 protected:
  void SetUp() override {
    fd_ = ::open("/tmp/dbrepro-holder-preemption-tests.lock", O_RDWR | O_CREAT, 0666);
    if (fd_ >= 0) ::flock(fd_, LOCK_EX);
  }
  void TearDown() override {
    if (fd_ >= 0) ::close(fd_);  // releases the lock
  }

 private:
  int fd_ = -1;
};

int last_allowed_cpu() {
  cpu_set_t set;
  CPU_ZERO(&set);
  ::sched_getaffinity(0, sizeof set, &set);
  int last = 0;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &set)) last = cpu;
  return last;
}

// A SCHED_RR thread of priority 1 pinned to `cpu`; 0 or the error of pthread_create.
struct RrThread {
  std::function<void()> body;
  pthread_t thread{};
  static void* main(void* self) {
    static_cast<RrThread*>(self)->body();
    return nullptr;
  }
  int start(int cpu) {
    pthread_attr_t attr;
    ::pthread_attr_init(&attr);
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    ::pthread_attr_setaffinity_np(&attr, sizeof set, &set);
    ::pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
    ::pthread_attr_setschedpolicy(&attr, SCHED_RR);
    sched_param param{};
    param.sched_priority = 1;
    ::pthread_attr_setschedparam(&attr, &param);
    const int rc = ::pthread_create(&thread, &attr, &RrThread::main, this);
    ::pthread_attr_destroy(&attr);
    return rc;
  }
  void join() { ::pthread_join(thread, nullptr); }
};


// The holder takes the latch and spins, holding it, until the other thread
// (same CPU, same priority) has started, which it can only do once the
// holder's timeslice has ended; the other then runs `other_body`. Counts of
// both, or the error of starting a thread (EPERM: not root).
struct HolderAndOther {
  int error = 0;
  LatchCounters holder, other;
};
HolderAndOther holder_then_other(const std::function<void(Latch&)>& other_body) {
  const int cpu = last_allowed_cpu();
  Latch latch;
  HolderAndOther out;
  std::atomic<bool> holding{false}, other_started{false};
  RrThread holder{[&] {
    attach_latch_counters(&out.holder);
    latch.lock();
    holding.store(true);
    while (!other_started.load()) {
    }
    latch.unlock();
    attach_latch_counters(nullptr);
  }};
  RrThread other{[&] {
    attach_latch_counters(&out.other);
    other_started.store(true);
    other_body(latch);
    attach_latch_counters(nullptr);
  }};
  if ((out.error = holder.start(cpu)) != 0) return out;
  while (!holding.load()) ::sched_yield();
  out.error = other.start(cpu);
  if (out.error != 0) other_started.store(true);  // let the holder finish
  holder.join();
  if (out.error == 0) other.join();
  return out;
}

#define SKIP_WITHOUT_RR(error)                                                                 \
  do {                                                                                         \
    if ((error) == EPERM) GTEST_SKIP() << "SCHED_RR needs root or CAP_SYS_NICE (CI runs as root)"; \
    ASSERT_EQ((error), 0);                                                                     \
  } while (0)

TEST_F(SchedHolderPreemption, HolderSwitchedOutWhileHoldingIsCounted) {
  const HolderAndOther run = holder_then_other([](Latch&) {});
  SKIP_WITHOUT_RR(run.error);
  EXPECT_EQ(run.holder.acquisitions, 1u);
  EXPECT_EQ(run.holder.holder_preemptions, 1u);
  EXPECT_EQ(run.other.acquisitions, 0u);
}

TEST_F(SchedHolderPreemption, LongHoldOnItsOwnCpuIsNotCounted) {
  const int cpu = last_allowed_cpu();
  Latch latch;
  LatchCounters counts;
  RrThread holder{[&] {
    attach_latch_counters(&counts);
    for (int i = 0; i < 1000; ++i) {  // short holds
      latch.lock();
      latch.unlock();
    }
    latch.lock();  // a hold far longer than the counter's gap, with the CPU to itself
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(5);
    while (std::chrono::steady_clock::now() < until) {
    }
    latch.unlock();
    attach_latch_counters(nullptr);
  }};
  const int error = holder.start(cpu);
  SKIP_WITHOUT_RR(error);
  holder.join();
  EXPECT_EQ(counts.acquisitions, 1001u);
  EXPECT_EQ(counts.waits, 0u);
  EXPECT_EQ(counts.holder_preemptions, 0u);
}

TEST_F(SchedHolderPreemption, WaiterOnTheHoldersCpuWaitsForItsTurn) {
  // The mechanism of E4's growth: a waiter on the holder's CPU cannot get the
  // latch until the holder has the CPU again; it spins, then sleeps, which
  // gives the holder its CPU back.
  const HolderAndOther run = holder_then_other([](Latch& latch) {
    latch.lock();
    latch.unlock();
  });
  SKIP_WITHOUT_RR(run.error);
  EXPECT_EQ(run.holder.holder_preemptions, 1u);
  EXPECT_EQ(run.other.acquisitions, 1u);
  EXPECT_EQ(run.other.waits, 1u);
  EXPECT_EQ(run.other.holder_preemptions, 0u);
}

}  // namespace
}  // namespace dbrepro
