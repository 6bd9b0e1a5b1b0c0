#include "driver/run.hpp"

#include <time.h>

#include <chrono>

#include "stack/paged_engine.hpp"
#include "tpcc/consistency.hpp"
#include "tpcc/loader.hpp"
#include "tpcc/transactions.hpp"

namespace dbrepro::tpcc {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// Picks a transaction type by weight (one uniform draw per transaction).
class MixChooser {
 public:
  explicit MixChooser(const std::array<double, kTxnTypeCount>& mix) {
    double total = 0;
    for (double w : mix) total += w;
    double acc = 0;
    for (int i = 0; i < kTxnTypeCount; ++i) {
      acc += mix[i] / total;
      cumulative_[i] = acc;
    }
    cumulative_[kTxnTypeCount - 1] = 1.0;
  }
  TxnType pick(Random& rng) const {
    const double u = rng.unit();
    for (int i = 0; i < kTxnTypeCount; ++i)
      if (u < cumulative_[i]) return static_cast<TxnType>(i);
    return static_cast<TxnType>(kTxnTypeCount - 1);
  }

 private:
  std::array<double, kTxnTypeCount> cumulative_{};
};

// Out of line, so that callgrind attributes each transaction's instructions
// to one symbol (the inputs are drawn outside them).
template <class Engine>
[[gnu::noinline]] bool execute_new_order(Database<Engine>& db, const NewOrderInput& in) {
  return new_order(db, in);
}
template <class Engine>
[[gnu::noinline]] bool execute_payment(Database<Engine>& db, const PaymentInput& in) {
  return payment(db, in);
}

template <class Engine>
RunResult run_on(const RunConfig& config, const ProgressFn& progress) {
  RunResult result;
  result.config = config;

  Engine engine(config.page_size);
  Database<Engine> db(engine);
  // Separate streams for the data and the transactions: changing the mix
  // leaves the loaded database identical.
  Random load_rng(config.seed);
  Random run_rng(config.seed ^ 0x5DEECE66Dull);
  const NURandConstants load_constants = NURandConstants::for_load(load_rng);
  const NURandConstants run_constants = NURandConstants::for_run(load_constants, run_rng);

  const auto load_start = Clock::now();
  load(db, config.warehouses, load_rng, load_constants);
  result.load_seconds = seconds_since(load_start);
  result.database_pages = engine.pages().page_count();
  result.database_bytes = engine.pages().bytes();

  const MixChooser chooser(config.mix);
  const u64 limit = config.transactions;
  const auto start = Clock::now();
  const double cpu_start = thread_cpu_seconds();
  u64 done = 0;
  for (;;) {
    if (limit > 0 && done >= limit) break;
    const TxnType type = chooser.pick(run_rng);
    const u32 home_w = static_cast<u32>(run_rng.uniform(1, config.warehouses));
    bool committed = false;
    auto t0 = Clock::now();
    switch (type) {
      case TxnType::kNewOrder: {
        const auto input = make_new_order_input(run_rng, config.variant, config.warehouses, home_w, run_constants);
        t0 = Clock::now();
        committed = execute_new_order(db, input);
        break;
      }
      case TxnType::kPayment: {
        const auto input = make_payment_input(run_rng, config.variant, config.warehouses, home_w, run_constants);
        t0 = Clock::now();
        committed = execute_payment(db, input);
        break;
      }
      default:
        break;  // rejected by validate()
    }
    TxnStats& stats = result.per_type[static_cast<int>(type)];
    stats.seconds += std::chrono::duration<double>(Clock::now() - t0).count();
    (committed ? stats.commits : stats.aborts) += 1;
    ++done;
    if (done % config.progress_every == 0) {
      if (config.seconds > 0 && seconds_since(start) >= config.seconds) break;
      if (progress && !progress(done, limit)) {
        result.interrupted = true;
        break;
      }
    }
  }
  result.elapsed_seconds = seconds_since(start);
  result.cpu_seconds = thread_cpu_seconds() - cpu_start;
  result.transactions = done;
  if (config.check_consistency) result.consistency = check_consistency(db);
  return result;
}

}  // namespace

RunResult run(const RunConfig& config, const ProgressFn& progress) {
  validate(config);
  if (config.key_compare == "generic") return run_on<PagedEngine<GenericKeyCompare>>(config, progress);
  return run_on<PagedEngine<IntegerKeyCompare>>(config, progress);
}

}  // namespace dbrepro::tpcc
