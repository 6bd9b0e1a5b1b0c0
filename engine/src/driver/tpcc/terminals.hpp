#pragma once
// Multi-threaded TPC-C: each terminal is an OS thread with its own session
// (transaction context), its own random stream and a fixed home warehouse
// (terminal t of T gets warehouse 1 + t mod W), no keying or think time.
// A transaction picked as a deadlock victim (its lock wait timed out) is
// rolled back and, after a random pause (retry_backoff.hpp), run again with
// the same input; the retries are counted.
#include <time.h>

#include <atomic>
#include <chrono>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "driver/tpcc/retry_backoff.hpp"
#include "driver/tpcc/run_result.hpp"
#include "driver/tpcc/terminal_gate.hpp"
#include "lock/lock_manager.hpp"
#include "tpcc/database.hpp"
#include "tpcc/mix.hpp"

namespace dbrepro::tpcc {

// What the terminals share: when to stop, and the gate.
struct TerminalControl {
  std::atomic<bool> stop{false};
  std::atomic<u64> issued{0};    // transactions started (against config.transactions)
  std::atomic<u64> finished{0};  // transactions done, for progress
  TerminalGate* gate = nullptr;  // null: never paused
};

// The logical clock of terminal t in run `run_id`: o_entry_d and h_date of
// the rows its transactions write are unique across terminals and runs.
inline u64 terminal_clock_base(u64 run_id, u32 terminal) { return (run_id << 40) | (u64{terminal + 1} << 28); }

inline u64 terminal_seed(u64 seed, u32 terminal) {
  return (seed ^ 0x5DEECE66Dull) + 0x9E3779B97F4A7C15ull * terminal;
}

// Runs config.terminals terminals on engine E until config.transactions
// have been issued, config.seconds have passed or control.stop is set.
// on_commit(terminal, type, stamp) runs after each commit returns (stamp:
// the clock value the transaction wrote). Returns the per-type totals.
template <class E, class OnCommit>
std::array<TxnStats, kTxnTypeCount> run_terminals(E& engine, const RunConfig& config,
                                                  const NURandConstants& constants, u64 run_id,
                                                  TerminalControl& control, OnCommit&& on_commit) {
  static_assert(E::kConcurrent);
  using Session = typename E::Session;
  const u32 terminals = config.terminals;
  std::vector<std::array<TxnStats, kTxnTypeCount>> tallies(terminals);
  std::exception_ptr failure;
  std::mutex failure_mutex;
  const auto start = std::chrono::steady_clock::now();

  auto terminal = [&](u32 t) {
    try {
      Session session(engine);
      Database<Session> db(session);
      db.warehouses = config.warehouses;
      db.clock = terminal_clock_base(run_id, t);
      Random rng(terminal_seed(config.seed, t));
      RetryBackoff backoff(terminal_seed(config.seed, t) ^ 0xBAC0FFull);
      const u32 home_w = 1 + t % config.warehouses;
      const MixChooser chooser(config.mix);
      auto& tally = tallies[t];
      while (!control.stop.load(std::memory_order_relaxed)) {
        if (control.gate) {
          control.gate->pass();
          if (control.stop.load(std::memory_order_relaxed)) break;  // stopped while parked
        }
        if (config.transactions > 0 && control.issued.fetch_add(1) >= config.transactions) break;
        const TxnType type = chooser.pick(rng);
        TxnStats& stats = tally[static_cast<int>(type)];
        u64 stamp = 0;
        const auto t0 = std::chrono::steady_clock::now();
        const bool committed =
            run_transaction(db, type, rng, config.variant, config.warehouses, home_w, constants, [&](auto&& transaction) {
              for (u32 attempt = 1;; ++attempt) {
                stamp = db.clock;
                try {
                  return transaction();
                } catch (const LockTimeout&) {
                  session.abort();  // roll back, release the locks, let the other finish, run it again
                  ++stats.retries;
                  backoff.pause(attempt);
                }
              }
            });
        const auto t1 = std::chrono::steady_clock::now();
        stats.seconds += std::chrono::duration<double>(t1 - t0).count();
        (committed ? stats.commits : stats.aborts) += 1;
        if (committed) on_commit(t, type, stamp);
        control.finished.fetch_add(1, std::memory_order_relaxed);
        if (config.seconds > 0 && std::chrono::duration<double>(t1 - start).count() >= config.seconds)
          control.stop.store(true);
      }
    } catch (...) {
      std::lock_guard<std::mutex> guard(failure_mutex);
      if (!failure) failure = std::current_exception();
      control.stop.store(true);
    }
    if (control.gate) control.gate->leave();
  };

  std::vector<std::thread> threads;
  threads.reserve(terminals);
  for (u32 t = 0; t < terminals; ++t) threads.emplace_back(terminal, t);
  for (auto& thread : threads) thread.join();
  if (failure) std::rethrow_exception(failure);

  std::array<TxnStats, kTxnTypeCount> total{};
  for (const auto& tally : tallies)
    for (int i = 0; i < kTxnTypeCount; ++i) {
      total[i].commits += tally[i].commits;
      total[i].aborts += tally[i].aborts;
      total[i].retries += tally[i].retries;
      total[i].seconds += tally[i].seconds;
    }
  return total;
}

inline double process_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

}  // namespace dbrepro::tpcc
