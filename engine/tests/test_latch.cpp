// Tests of the latches (latch/latch.hpp): SpinLatch and RwLatch give mutual
// exclusion between threads, RwLatch lets readers share, and the removed
// forms (NullMutex, NullRwLatch: E1's "latching" switch) are empty types whose
// operations do nothing. Every loop is bounded; a waiting thread is given
// generous time, so the tests do not depend on scheduling luck.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <type_traits>
#include <vector>

#include "latch/latch.hpp"

namespace dbrepro {
namespace {

using namespace std::chrono_literals;

// Waits (bounded) until pred() holds; false if it never did.
template <class Pred>
bool eventually(Pred pred, std::chrono::milliseconds limit = 10s) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!pred()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(1ms);
  }
  return true;
}

// N threads each enter the critical section `rounds` times; inside, a plain
// (non-atomic) counter is incremented in two steps with a yield in between,
// and an atomic occupancy count must read 1. Any overlap loses increments or
// shows two occupants.
template <class Lock, class Unlock>
void hammer(int threads, int rounds, Lock lock, Unlock unlock) {
  long counter = 0;
  std::atomic<int> inside{0};
  std::atomic<int> overlaps{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&] {
      for (int i = 0; i < rounds; ++i) {
        lock();
        if (inside.fetch_add(1) != 0) overlaps.fetch_add(1);
        const long seen = counter;
        if (i % 64 == 0) std::this_thread::yield();  // widen the window now and then
        counter = seen + 1;
        inside.fetch_sub(1);
        unlock();
      }
    });
  }
  for (auto& th : pool) th.join();
  EXPECT_EQ(overlaps.load(), 0) << "two threads were inside at once";
  EXPECT_EQ(counter, static_cast<long>(threads) * rounds) << "increments were lost";
}

TEST(SpinLatch, MutualExclusionTwoThreads) {
  SpinLatch latch;
  hammer(2, 20000, [&] { latch.lock(); }, [&] { latch.unlock(); });
}

TEST(SpinLatch, MutualExclusionFourThreads) {
  SpinLatch latch;
  hammer(4, 10000, [&] { latch.lock(); }, [&] { latch.unlock(); });
}

TEST(SpinLatch, TryLock) {
  SpinLatch latch;
  EXPECT_TRUE(latch.try_lock());
  EXPECT_FALSE(latch.try_lock()) << "try_lock took a held latch";
  bool other = true;
  std::thread([&] { other = latch.try_lock(); }).join();
  EXPECT_FALSE(other) << "another thread took a held latch";
  latch.unlock();
  EXPECT_TRUE(latch.try_lock());
  latch.unlock();
}

TEST(SpinLatch, WaiterProceedsAfterUnlock) {
  SpinLatch latch;
  latch.lock();
  std::atomic<bool> acquired{false};
  std::thread waiter([&] {
    latch.lock();
    acquired = true;
    latch.unlock();
  });
  std::this_thread::sleep_for(30ms);
  EXPECT_FALSE(acquired.load()) << "the waiter got a held latch";
  latch.unlock();
  EXPECT_TRUE(eventually([&] { return acquired.load(); })) << "the waiter never got the released latch";
  waiter.join();
}

TEST(SpinLatch, GuardWorksWithStdLocks) {
  SpinLatch latch;
  {
    LatchGuard<SpinLatch> guard(latch);
    EXPECT_FALSE(latch.try_lock());
  }
  EXPECT_TRUE(latch.try_lock()) << "LatchGuard did not release";
  latch.unlock();
  {
    std::unique_lock<SpinLatch> lock(latch);  // the lock manager uses it with condition_variable_any
    EXPECT_FALSE(latch.try_lock());
  }
  EXPECT_TRUE(latch.try_lock());
  latch.unlock();
  // The guard in a threaded loop.
  hammer(3, 10000, [&] { latch.lock(); }, [&] { latch.unlock(); });
}

TEST(RwLatch, ExclusiveMutualExclusion) {
  RwLatch latch;
  hammer(4, 10000, [&] { latch.lock(); }, [&] { latch.unlock(); });
  // Through acquire/release with the exclusive mode.
  hammer(2, 10000, [&] { latch.acquire(LatchMode::kExclusive); }, [&] { latch.release(LatchMode::kExclusive); });
}

TEST(RwLatch, SharedReadersCoexist) {
  RwLatch latch;
  latch.lock_shared();
  // A second reader, in another thread, gets in while the first holds it.
  std::atomic<bool> second{false};
  std::thread reader([&] {
    latch.acquire(LatchMode::kShared);
    second = true;
    latch.release(LatchMode::kShared);
  });
  EXPECT_TRUE(eventually([&] { return second.load(); })) << "a reader waited for another reader";
  reader.join();
  // Four readers all inside at the same time.
  std::atomic<int> inside{0};
  std::atomic<int> most{0};
  std::atomic<bool> go_out{false};
  std::vector<std::thread> readers;
  for (int t = 0; t < 4; ++t) {
    readers.emplace_back([&] {
      latch.lock_shared();
      const int now = inside.fetch_add(1) + 1;
      int m = most.load();
      while (now > m && !most.compare_exchange_weak(m, now)) {
      }
      while (!go_out.load()) std::this_thread::sleep_for(1ms);
      inside.fetch_sub(1);
      latch.unlock_shared();
    });
  }
  EXPECT_TRUE(eventually([&] { return inside.load() == 4; })) << "readers excluded each other";
  go_out = true;
  for (auto& th : readers) th.join();
  EXPECT_EQ(most.load(), 4);
  latch.unlock_shared();
  // Every reader left: a writer gets in at once.
  std::atomic<bool> writer_in{false};
  std::thread writer([&] {
    latch.lock();
    writer_in = true;
    latch.unlock();
  });
  EXPECT_TRUE(eventually([&] { return writer_in.load(); })) << "the reader count leaked";
  writer.join();
}

TEST(RwLatch, WriterWaitsForReadersAndReadersForWriter) {
  RwLatch latch;
  latch.lock_shared();
  std::atomic<bool> writer_in{false};
  std::thread writer([&] {
    latch.acquire(LatchMode::kExclusive);
    writer_in = true;
    std::this_thread::sleep_for(30ms);
    writer_in = false;
    latch.release(LatchMode::kExclusive);
  });
  std::this_thread::sleep_for(30ms);
  EXPECT_FALSE(writer_in.load()) << "a writer got in beside a reader";
  latch.unlock_shared();
  ASSERT_TRUE(eventually([&] { return writer_in.load(); })) << "the writer never got in";
  // Now a reader must wait for the writer.
  latch.lock_shared();
  EXPECT_FALSE(writer_in.load()) << "a reader got in beside a writer";
  latch.unlock_shared();
  writer.join();
}

TEST(RwLatch, ReadersSeeConsistentStateUnderConcurrentWriters) {
  // Writers keep a == b (updated in two steps); readers under the shared
  // latch must never see them differ.
  RwLatch latch;
  long a = 0, b = 0;
  std::atomic<long> torn{0}, reads{0};
  std::vector<std::thread> pool;
  for (int w = 0; w < 2; ++w) {
    pool.emplace_back([&] {
      for (int i = 0; i < 5000; ++i) {
        latch.lock();
        ++a;
        if (i % 32 == 0) std::this_thread::yield();
        ++b;
        latch.unlock();
      }
    });
  }
  for (int r = 0; r < 2; ++r) {
    pool.emplace_back([&] {
      for (int i = 0; i < 5000; ++i) {
        latch.lock_shared();
        if (a != b) torn.fetch_add(1);
        reads.fetch_add(1);
        latch.unlock_shared();
      }
    });
  }
  for (auto& th : pool) th.join();
  EXPECT_EQ(torn.load(), 0) << "a reader saw a half-done write";
  EXPECT_EQ(reads.load(), 10000);
  EXPECT_EQ(a, 10000);
  EXPECT_EQ(b, 10000);
}

// ---------------------------------------------------------------------------
// The removed forms.

TEST(NullLatches, AreEmptyTypesThatNeverBlock) {
  static_assert(std::is_empty_v<NullMutex>);
  static_assert(std::is_empty_v<NullRwLatch>);
  static_assert(std::is_trivially_default_constructible_v<NullMutex>);
  static_assert(std::is_trivially_destructible_v<NullRwLatch>);
  static_assert(std::is_same_v<NoLatching::Mutex, NullMutex>);
  static_assert(std::is_same_v<NoLatching::PageLatch, NullRwLatch>);
  static_assert(std::is_same_v<Latching::Mutex, SpinLatch>);
  static_assert(std::is_same_v<Latching::PageLatch, RwLatch>);
  static_assert(!NoLatching::kEnabled && Latching::kEnabled);
  NullMutex m;
  m.lock();
  m.lock();  // a real latch would deadlock here
  EXPECT_TRUE(m.try_lock());
  m.unlock();
  {
    LatchGuard<NullMutex> g1(m);
    LatchGuard<NullMutex> g2(m);
  }
  NullRwLatch rw;
  rw.lock();
  rw.lock_shared();
  rw.acquire(LatchMode::kExclusive);
  rw.acquire(LatchMode::kShared);
  rw.release(LatchMode::kShared);
  rw.release(LatchMode::kExclusive);
  rw.unlock_shared();
  rw.unlock();
  std::unique_lock<NoLatching::Mutex> lock(m);
  EXPECT_TRUE(lock.owns_lock());
}

// A struct with a null latch member costs no space beyond alignment: the
// latch-free stacks carry no latch state in their frames.
TEST(NullLatches, TakeNoSpaceWithNoUniqueAddress) {
  struct WithNull {
    [[no_unique_address]] NullRwLatch latch;
    u64 payload;
  };
  static_assert(sizeof(WithNull) == sizeof(u64));
  static_assert(sizeof(NullMutex) == 1 && sizeof(NullRwLatch) == 1);
  static_assert(sizeof(SpinLatch) <= 8 && sizeof(RwLatch) == 4);
  SUCCEED();
}

}  // namespace
}  // namespace dbrepro
