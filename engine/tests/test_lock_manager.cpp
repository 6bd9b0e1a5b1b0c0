// Tests of the lock manager (lock/lock_manager.hpp): the hierarchical
// compatibility matrix and the supremum used for upgrades; lock, re-lock and
// upgrade bookkeeping; strict 2PL release (heads go back to the free lists,
// so locking many distinct keys again and again does not grow memory);
// waiting for a conflicting holder with latches, the timeout that presumes a
// deadlock, and the immediate LockTimeout of a stack without latches.
#include <gtest/gtest.h>
#include <malloc.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "common/random.hpp"
#include "lock/lock_manager.hpp"

namespace dbrepro {
namespace {

using namespace std::chrono_literals;
constexpr LockMode kModes[] = {LockMode::kIS, LockMode::kIX, LockMode::kS, LockMode::kX};
const char* name(LockMode m) {
  static const char* names[] = {"IS", "IX", "S", "X"};
  return names[static_cast<int>(m)];
}

Transaction make_txn(u64 id) {
  Transaction t;
  t.reset(id);
  return t;
}

// ---------------------------------------------------------------------------
// Modes

TEST(LockModes, CompatibilityMatrix) {
  // Gray and Reuter's matrix without SIX: rows held, columns wanted.
  const bool expected[4][4] = {
      {true, true, true, false},     // IS
      {true, true, false, false},    // IX
      {true, false, true, false},    // S
      {false, false, false, false},  // X
  };
  for (int h = 0; h < 4; ++h)
    for (int w = 0; w < 4; ++w)
      EXPECT_EQ(compatible(kModes[h], kModes[w]), expected[h][w]) << name(kModes[h]) << " held, " << name(kModes[w]);
  // Symmetric.
  for (LockMode a : kModes)
    for (LockMode b : kModes) EXPECT_EQ(compatible(a, b), compatible(b, a)) << name(a) << "/" << name(b);
}

TEST(LockModes, Supremum) {
  // Expected values (no SIX: S + IX rounds up to X).
  const LockMode I = LockMode::kIS, IX = LockMode::kIX, S = LockMode::kS, X = LockMode::kX;
  const LockMode expected[4][4] = {
      {I, IX, S, X},
      {IX, IX, X, X},
      {S, X, S, X},
      {X, X, X, X},
  };
  for (int a = 0; a < 4; ++a)
    for (int b = 0; b < 4; ++b)
      EXPECT_EQ(supremum(kModes[a], kModes[b]), expected[a][b]) << name(kModes[a]) << " + " << name(kModes[b]);
  for (LockMode a : kModes) {
    EXPECT_EQ(supremum(a, a), a) << "idempotent";
    for (LockMode b : kModes) {
      const LockMode s = supremum(a, b);
      EXPECT_EQ(s, supremum(b, a)) << "commutative";
      // At least as strong as both: whatever conflicts with a or b conflicts with s.
      for (LockMode other : kModes) {
        if (!compatible(a, other) || !compatible(b, other)) {
          EXPECT_FALSE(compatible(s, other)) << name(a) << "+" << name(b) << "=" << name(s) << " vs " << name(other);
        }
      }
    }
  }
}

// ---------------------------------------------------------------------------
// Bookkeeping, single-threaded (no latches: conflicts throw at once).

TEST(LockManager, LockRelockAndUpgrade) {
  LockManager<NoLatching> locks;
  Transaction t1 = make_txn(1), t2 = make_txn(2);
  const LockId row{3, 42};
  locks.lock(&t1, row, LockMode::kS);
  ASSERT_EQ(t1.locks.size(), 1u);
  locks.lock(&t1, row, LockMode::kS);
  locks.lock(&t1, row, LockMode::kIS);  // weaker than held: nothing changes
  EXPECT_EQ(t1.locks.size(), 1u) << "a re-lock added a request";

  // Another reader shares it, a writer conflicts.
  locks.lock(&t2, row, LockMode::kS);
  EXPECT_EQ(t2.locks.size(), 1u);
  locks.release_all(&t2);
  EXPECT_TRUE(t2.locks.empty());

  // Upgrade in place: still one request, now exclusive.
  locks.lock(&t1, row, LockMode::kX);
  EXPECT_EQ(t1.locks.size(), 1u) << "an upgrade added a request instead of changing the mode";
  EXPECT_THROW(locks.lock(&t2, row, LockMode::kIS), LockTimeout) << "the upgrade to X did not take effect";
  EXPECT_TRUE(t2.locks.empty()) << "a refused request was recorded";
  // Re-locking weaker while holding X keeps X.
  locks.lock(&t1, row, LockMode::kS);
  EXPECT_THROW(locks.lock(&t2, row, LockMode::kS), LockTimeout);

  // Other keys and tables are independent.
  locks.lock(&t2, LockId{3, 43}, LockMode::kX);
  locks.lock(&t2, LockId{4, 42}, LockMode::kX);
  locks.lock(&t2, LockId{3, LockId::kTableLock}, LockMode::kIX);
  EXPECT_EQ(t2.locks.size(), 3u);

  locks.release_all(&t1);
  EXPECT_TRUE(t1.locks.empty());
  // After commit the key is free.
  locks.lock(&t2, row, LockMode::kX);
  EXPECT_EQ(t2.locks.size(), 4u);
  EXPECT_THROW(locks.lock(&t1, row, LockMode::kIS), LockTimeout);
  locks.release_all(&t2);
  locks.lock(&t1, row, LockMode::kX);
  locks.release_all(&t1);
}

TEST(LockManager, EveryPairOfModesAcrossTransactions) {
  for (LockMode held : kModes) {
    for (LockMode wanted : kModes) {
      SCOPED_TRACE(std::string(name(held)) + " held, " + name(wanted) + " wanted");
      LockManager<NoLatching> locks(1024);
      Transaction t1 = make_txn(1), t2 = make_txn(2);
      const LockId id{1, LockId::kTableLock};
      locks.lock(&t1, id, held);
      if (compatible(held, wanted)) {
        EXPECT_NO_THROW(locks.lock(&t2, id, wanted));
        EXPECT_EQ(t2.locks.size(), 1u);
        // A third transaction conflicts with the stronger of both.
        Transaction t3 = make_txn(3);
        EXPECT_THROW(locks.lock(&t3, id, LockMode::kX), LockTimeout);
      } else {
        EXPECT_THROW(locks.lock(&t2, id, wanted), LockTimeout);
        EXPECT_TRUE(t2.locks.empty());
      }
      locks.release_all(&t1);
      locks.release_all(&t2);
      Transaction t4 = make_txn(4);
      EXPECT_NO_THROW(locks.lock(&t4, id, LockMode::kX)) << "a lock survived release_all";
      locks.release_all(&t4);
    }
  }
}

TEST(LockManager, UpgradeBlockedByAnotherReader) {
  LockManager<NoLatching> locks;
  Transaction t1 = make_txn(1), t2 = make_txn(2);
  const LockId id{7, 7};
  locks.lock(&t1, id, LockMode::kS);
  locks.lock(&t2, id, LockMode::kS);
  EXPECT_THROW(locks.lock(&t1, id, LockMode::kX), LockTimeout);
  // The failed upgrade left t1 with S: t2 still reads, nobody writes.
  locks.lock(&t2, id, LockMode::kS);
  Transaction t3 = make_txn(3);
  locks.lock(&t3, id, LockMode::kIS);
  locks.release_all(&t2);
  locks.release_all(&t3);
  locks.lock(&t1, id, LockMode::kX);  // alone now: the upgrade goes through
  EXPECT_EQ(t1.locks.size(), 1u);
  EXPECT_THROW(locks.lock(&t2, id, LockMode::kIS), LockTimeout);
  locks.release_all(&t1);
}

TEST(LockManager, IntentionLocksOnTheTable) {
  // Two writers of different rows share the table (IX + IX); a table scan (S)
  // waits for both; a reader of a row (IS) coexists with the scan.
  LockManager<NoLatching> locks;
  Transaction w1 = make_txn(1), w2 = make_txn(2), scan = make_txn(3), reader = make_txn(4);
  const LockId table{5, LockId::kTableLock};
  locks.lock(&w1, table, LockMode::kIX);
  locks.lock(&w1, LockId{5, 1}, LockMode::kX);
  locks.lock(&w2, table, LockMode::kIX);
  locks.lock(&w2, LockId{5, 2}, LockMode::kX);
  EXPECT_THROW(locks.lock(&scan, table, LockMode::kS), LockTimeout);
  locks.release_all(&w1);
  EXPECT_THROW(locks.lock(&scan, table, LockMode::kS), LockTimeout);
  locks.release_all(&w2);
  locks.lock(&scan, table, LockMode::kS);
  locks.lock(&reader, table, LockMode::kIS);
  locks.lock(&reader, LockId{5, 1}, LockMode::kS);
  EXPECT_THROW(locks.lock(&w1, table, LockMode::kIX), LockTimeout) << "a writer got past a table scan";
  locks.release_all(&scan);
  locks.release_all(&reader);
  locks.lock(&w1, table, LockMode::kIX);
  locks.release_all(&w1);
}

TEST(LockManager, ManyKeysInOneBucketChain) {
  // Few buckets: long chains, heads found among many others.
  LockManager<NoLatching> locks(4);
  Transaction t1 = make_txn(1), t2 = make_txn(2);
  for (u64 k = 0; k < 2000; ++k) locks.lock(&t1, LockId{1, k * 2}, LockMode::kX);
  for (u64 k = 0; k < 2000; ++k) locks.lock(&t2, LockId{1, k * 2 + 1}, LockMode::kX);
  for (u64 k = 0; k < 4000; k += 97) {
    Transaction& other = k % 2 ? t1 : t2;
    EXPECT_THROW(locks.lock(&other, LockId{1, k}, LockMode::kS), LockTimeout) << k;
  }
  EXPECT_EQ(t1.locks.size(), 2000u);
  locks.release_all(&t1);
  for (u64 k = 0; k < 2000; ++k) locks.lock(&t2, LockId{1, k * 2}, LockMode::kX);
  EXPECT_EQ(t2.locks.size(), 4000u);
  locks.release_all(&t2);
}

size_t heap_in_use() { return mallinfo2().uordblks; }

TEST(LockManager, ReleaseAllFreesHeadsAndRequests) {
  // 100,000 distinct keys per round, new keys every round. Released heads and
  // requests are reused: once every bucket has its chunks, memory stays flat.
  // (A head left in its chain costs ~3.4 MB more per round: 10 MB over the
  // last three rounds, against ~0.3 MB of new chunks for unlucky buckets.)
  LockManager<NoLatching> locks(1 << 12);
  Transaction t = make_txn(1);
  constexpr u64 kKeys = 100000;
  std::vector<size_t> in_use;
  for (u64 round = 0; round < 8; ++round) {
    for (u64 k = 0; k < kKeys; ++k) locks.lock(&t, LockId{static_cast<u32>(round % 3), round * kKeys + k}, LockMode::kX);
    ASSERT_EQ(t.locks.size(), kKeys);
    // A second transaction conflicts with a sample of them.
    Transaction other = make_txn(2);
    for (u64 k = 0; k < kKeys; k += 9973)
      EXPECT_THROW(locks.lock(&other, LockId{static_cast<u32>(round % 3), round * kKeys + k}, LockMode::kIS),
                   LockTimeout);
    locks.release_all(&t);
    ASSERT_TRUE(t.locks.empty());
    // ...and gets them all once released.
    for (u64 k = 0; k < kKeys; k += 9973) locks.lock(&other, LockId{static_cast<u32>(round % 3), round * kKeys + k}, LockMode::kX);
    locks.release_all(&other);
    in_use.push_back(heap_in_use());
  }
  const long first_round = static_cast<long>(in_use[0]);
  const long late_growth = static_cast<long>(in_use[7]) - static_cast<long>(in_use[4]);
  EXPECT_LT(late_growth, 1536 * 1024) << "memory grew by " << late_growth << " bytes over the last three rounds (first round: "
                                     << first_round << "): lock heads or requests are not reused";
  // Re-locking released keys works.
  for (u64 k = 0; k < 1000; ++k) locks.lock(&t, LockId{0, k}, LockMode::kX);
  locks.release_all(&t);
}

// ---------------------------------------------------------------------------
// With latches: waiting, granting, timeouts.

TEST(LockManagerThreads, ConflictingRequestWaitsUntilCommit) {
  LockManager<Latching> locks(1 << 10, 10s);
  Transaction t1 = make_txn(1), t2 = make_txn(2);
  const LockId id{2, 99};
  locks.lock(&t1, id, LockMode::kX);
  std::atomic<bool> granted{false};
  std::thread waiter([&] {
    locks.lock(&t2, id, LockMode::kS);
    granted = true;
  });
  std::this_thread::sleep_for(50ms);
  EXPECT_FALSE(granted.load()) << "granted while the holder still had X";
  locks.release_all(&t1);  // commit
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  while (!granted.load() && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(1ms);
  EXPECT_TRUE(granted.load()) << "the waiter was not granted after the holder committed";
  waiter.join();
  EXPECT_EQ(t2.locks.size(), 1u);
  locks.release_all(&t2);
  locks.lock(&t1, id, LockMode::kX);
  locks.release_all(&t1);
}

TEST(LockManagerThreads, UpgradeWaitsForTheOtherReader) {
  LockManager<Latching> locks(1 << 10, 10s);
  Transaction t1 = make_txn(1), t2 = make_txn(2);
  const LockId id{2, 5};
  locks.lock(&t1, id, LockMode::kS);
  locks.lock(&t2, id, LockMode::kS);
  std::atomic<bool> upgraded{false};
  std::thread upgrader([&] {
    locks.lock(&t1, id, LockMode::kX);
    upgraded = true;
  });
  std::this_thread::sleep_for(50ms);
  EXPECT_FALSE(upgraded.load());
  locks.release_all(&t2);
  upgrader.join();
  EXPECT_TRUE(upgraded.load());
  EXPECT_EQ(t1.locks.size(), 1u);
  locks.release_all(&t1);
}

TEST(LockManagerThreads, WaitPastTheTimeoutThrows) {
  LockManager<Latching> locks(1 << 10, 60ms);
  Transaction t1 = make_txn(1), t2 = make_txn(2);
  const LockId id{1, 1};
  locks.lock(&t1, id, LockMode::kX);
  const auto start = std::chrono::steady_clock::now();
  EXPECT_THROW(locks.lock(&t2, id, LockMode::kX), LockTimeout);
  const auto waited = std::chrono::steady_clock::now() - start;
  EXPECT_GE(waited, 55ms) << "gave up before the timeout";
  EXPECT_LT(waited, 5s);
  EXPECT_TRUE(t2.locks.empty());
  // The bucket is usable afterwards: t2 gets it once t1 commits.
  locks.release_all(&t1);
  locks.lock(&t2, id, LockMode::kX);
  locks.release_all(&t2);
}

TEST(LockManagerThreads, DeadlockIsBrokenByTheTimeout) {
  // Both read, then both want to write: a deadlock. At least one times out;
  // once it releases (aborts), the other may proceed.
  LockManager<Latching> locks(1 << 10, 100ms);
  const LockId id{3, 3};
  std::atomic<int> timeouts{0}, upgrades{0}, ready{0};
  auto body = [&](u64 txn_id) {
    Transaction t = make_txn(txn_id);
    locks.lock(&t, id, LockMode::kS);
    ready.fetch_add(1);
    while (ready.load() < 2) std::this_thread::yield();
    try {
      locks.lock(&t, id, LockMode::kX);
      upgrades.fetch_add(1);
    } catch (const LockTimeout&) {
      timeouts.fetch_add(1);
    }
    locks.release_all(&t);
  };
  std::thread a(body, 1), b(body, 2);
  a.join();
  b.join();
  EXPECT_GE(timeouts.load(), 1) << "a deadlock was not broken";
  EXPECT_EQ(timeouts.load() + upgrades.load(), 2);
}

TEST(LockManagerThreads, WithoutLatchingAConflictThrowsAtOnce) {
  LockManager<NoLatching> locks(1 << 10, 10s);
  Transaction t1 = make_txn(1), t2 = make_txn(2);
  locks.lock(&t1, LockId{1, 1}, LockMode::kS);
  const auto start = std::chrono::steady_clock::now();
  EXPECT_THROW(locks.lock(&t2, LockId{1, 1}, LockMode::kX), LockTimeout);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 1s) << "waited without latches";
  locks.release_all(&t1);
}

TEST(LockManagerThreads, ExclusiveLocksSerializeWriters) {
  // Four threads run transactions that X-lock a few of 16 keys (in key order:
  // no deadlocks) and increment plain counters guarded only by those locks.
  LockManager<Latching> locks(1 << 6, 20s);
  constexpr int kThreads = 4, kTxns = 1500, kKeys = 16;
  std::vector<long> counters(kKeys, 0);
  std::atomic<long> timeouts{0};
  std::vector<long> expected(kKeys, 0);
  std::vector<std::vector<std::vector<int>>> plans(kThreads);
  Random rng(2024);
  for (int t = 0; t < kThreads; ++t) {
    for (int i = 0; i < kTxns; ++i) {
      std::vector<int> keys;
      for (int j = 0; j < 3; ++j) keys.push_back(static_cast<int>(rng.uniform(0, kKeys - 1)));
      std::sort(keys.begin(), keys.end());
      keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
      for (int k : keys) ++expected[k];
      plans[t].push_back(keys);
    }
  }
  std::vector<std::thread> pool;
  for (int t = 0; t < kThreads; ++t) {
    pool.emplace_back([&, t] {
      Transaction txn;
      for (int i = 0; i < kTxns; ++i) {
        txn.reset(static_cast<u64>(t) * kTxns + i + 1);
        try {
          for (int k : plans[t][i]) locks.lock(&txn, LockId{9, static_cast<u64>(k)}, LockMode::kX);
          for (int k : plans[t][i]) {
            const long v = counters[k];
            if (i % 50 == 0) std::this_thread::yield();
            counters[k] = v + 1;
          }
        } catch (const LockTimeout&) {
          timeouts.fetch_add(1);
        }
        locks.release_all(&txn);
      }
    });
  }
  for (auto& th : pool) th.join();
  ASSERT_EQ(timeouts.load(), 0);
  EXPECT_EQ(counters, expected) << "two writers held the same X lock";
}

// ---------------------------------------------------------------------------
// The removed form.

TEST(NoLockManager, DoesNothing) {
  NoLockManager locks;
  Transaction t1 = make_txn(1), t2 = make_txn(2);
  locks.lock(&t1, LockId{1, 1}, LockMode::kX);
  locks.lock(&t2, LockId{1, 1}, LockMode::kX);  // no conflict: nothing is locked
  EXPECT_TRUE(t1.locks.empty());
  locks.release_all(&t1);
  locks.lock(nullptr, LockId{1, 1}, LockMode::kX);  // needs no transaction at all
  static_assert(std::is_empty_v<NoLockManager>);
  EXPECT_STREQ(NoLockManager::kName, "no locking");
  EXPECT_STREQ(LockManager<Latching>::kName, "lock manager");
}

}  // namespace
}  // namespace dbrepro
