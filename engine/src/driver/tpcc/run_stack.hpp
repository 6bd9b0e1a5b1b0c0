#pragma once
// The driver, written once for every engine type: one terminal in the
// calling thread (what E1 counts), or `terminals` threads (terminals.hpp). Each stack's
// instantiation lives in its own file under driver/tpcc/stacks/ (they compile in
// parallel, and a change to one stack rebuilds one file).
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <type_traits>

#include "common/temp_file.hpp"
#include "driver/tpcc/run.hpp"
#include "kernel/mem_engine.hpp"
#include "measure/callgrind_marks.hpp"
#include "measure/meter.hpp"
#include "stack/engine.hpp"
#include "driver/tpcc/terminals.hpp"
#include "stack/ladder.hpp"
#include "tpcc/consistency.hpp"
#include "tpcc/loader.hpp"
#include "tpcc/mix.hpp"

namespace dbrepro::tpcc {

namespace detail {

using Clock = std::chrono::steady_clock;

inline double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

inline double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// A flushing log needs a file: a fresh one in log_dir, removed after the run.
class LogFile {
 public:
  explicit LogFile(const std::string& dir) {
    const std::string base = temp_base(dir);
    path_ = make_temp_file(base, "dbrepro-log-");
    if (path_.empty()) throw std::invalid_argument("log_dir: cannot create a log file in '" + base + "'");
  }
  ~LogFile() { ::unlink(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Counter reads the engine's phase meter has made (0 for unmetered engines).
template <class E>
u64 reads_of(E& engine) {
  if constexpr (requires { engine.meter().reads(); }) {
    return engine.meter().reads();
  } else {
    return 0;
  }
}

template <class S>
constexpr bool kFlushesLog = std::is_same_v<typename S::DiskLog, FlushToFile> &&
                             !std::is_same_v<typename S::Log, NoLog>;

template <class E>
constexpr bool kConcurrentEngine = requires { requires E::kConcurrent; };

// The measured phase with config.terminals threads; progress is reported
// from the calling thread (a Python callback needs the caller's thread).
template <class E>
void run_terminals_measured(E& engine, const RunConfig& config, const NURandConstants& constants,
                            const ProgressFn& progress, RunResult& result) {
  TerminalControl control;
  std::array<TxnStats, kTxnTypeCount> totals{};
  std::exception_ptr failure;
  std::atomic<bool> finished{false};
  const auto start = Clock::now();
  const double cpu_start = process_cpu_seconds();
  std::thread runner([&] {
    try {
      totals = run_terminals(engine, config, constants, /*run_id=*/1, control, [](u32, TxnType, u64) {});
    } catch (...) {
      failure = std::current_exception();
    }
    finished.store(true);
  });
  while (!finished.load()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (progress && !control.stop.load() && !progress(control.finished.load(), config.transactions)) {
      result.interrupted = true;
      control.stop.store(true);
    }
  }
  runner.join();
  if (failure) std::rethrow_exception(failure);
  result.elapsed_seconds = seconds_since(start);
  result.cpu_seconds = process_cpu_seconds() - cpu_start;  // every terminal's
  result.per_type = totals;
  result.transactions = 0;
  for (const TxnStats& s : totals) result.transactions += s.commits + s.aborts;
}

// The warm-up: `config.warmup_transactions` of the mix by one terminal in
// the calling thread, from the run's random stream (so a seed gives the same
// warm-up and measured phase), counted nowhere. Then the pool and the meter
// start their counters from zero. False if progress asked to stop.
template <class E>
bool run_warmup(Database<E>& db, const RunConfig& config, Random& run_rng, const NURandConstants& constants,
                const ProgressFn& progress) {
  const MixChooser chooser(config.mix);
  for (u64 done = 1; done <= config.warmup_transactions; ++done) {
    const TxnType type = chooser.pick(run_rng);
    const u32 home_w = static_cast<u32>(run_rng.uniform(1, config.warehouses));
    run_transaction(db, type, run_rng, config.variant, config.warehouses, home_w, constants,
                    [](auto&& transaction) { return transaction(); });
    // A long warm-up can be stopped too; it reports no measured progress.
    if (done % config.progress_every == 0 && progress && !progress(0, config.transactions)) return false;
  }
  E& engine = db.engine;
  if constexpr (requires { engine.pages().start_measured(); }) engine.pages().start_measured();
  if constexpr (requires { engine.meter().reset(); }) engine.meter().reset();
  return true;
}

}  // namespace detail

// A TPC-C database loaded on engine E, and the transactions' random stream
// as the run starts it: what run_loaded runs the mix on.
template <class E>
struct LoadedDatabase {
  // Separate streams for the data and the transactions: changing the mix
  // leaves the loaded database identical.
  LoadedDatabase(E& engine, const RunConfig& config) : db(engine), run_rng(config.seed ^ 0x5DEECE66Dull) {
    Random load_rng(config.seed);
    const NURandConstants load_constants = NURandConstants::for_load(load_rng);
    run_constants = NURandConstants::for_run(load_constants, run_rng);
    const auto start = detail::Clock::now();
    load(db, config.warehouses, load_rng, load_constants);
    load_seconds = detail::seconds_since(start);
  }

  Database<E> db;
  Random run_rng;
  NURandConstants run_constants;
  double load_seconds = 0;
};

// Runs the mix on a loaded database (warm-up, measured phase), checks
// consistency. It changes the database and the stream: one run per load.
template <class E>
RunResult run_loaded(E& engine, LoadedDatabase<E>& loaded, const RunConfig& config, const ProgressFn& progress,
                     PerfCounters* counters) {
  using namespace detail;
  RunResult result;
  result.config = config;
  Database<E>& db = loaded.db;
  Random& run_rng = loaded.run_rng;
  const NURandConstants& run_constants = loaded.run_constants;

  result.load_seconds = loaded.load_seconds;
  result.database_pages = engine.database_pages();
  result.database_bytes = engine.database_bytes();
  if constexpr (requires { engine.pages().start_run(); }) engine.pages().start_run();  // E5: pool to its fraction
  if (!run_warmup(db, config, run_rng, run_constants, progress)) {
    result.interrupted = true;
    return result;
  }

  if (config.terminals > 1) {
    if constexpr (kConcurrentEngine<E>) {
      run_terminals_measured(engine, config, run_constants, progress, result);
      if constexpr (requires { engine.pages().end_run(); }) result.pool = engine.pages().end_run();
      if (config.check_consistency) result.consistency = check_consistency(db);
      return result;
    } else {
      throw std::invalid_argument("terminals: more than 1 needs a stack with locking, latching and the main log");
    }
  }

  DBREPRO_CALLGRIND_START();  // the measured phase begins (see callgrind_marks.hpp)
  const MixChooser chooser(config.mix);
  const u64 limit = config.transactions;
  const auto start = Clock::now();
  const double cpu_start = thread_cpu_seconds();
  u64 done = 0;
  for (;;) {
    if (limit > 0 && done >= limit) break;
    const TxnType type = chooser.pick(run_rng);
    const u32 home_w = static_cast<u32>(run_rng.uniform(1, config.warehouses));
    TxnStats& stats = result.per_type[static_cast<int>(type)];
    CounterValues before{};
    u64 meter_reads = 0;
    Clock::time_point t0;
    const bool committed =
        run_transaction(db, type, run_rng, config.variant, config.warehouses, home_w, run_constants, [&](auto&& transaction) {
          if (counters) before = counters->read();
          meter_reads = reads_of(engine);
          t0 = Clock::now();
          return transaction();
        });
    const auto t1 = Clock::now();
    stats.seconds += std::chrono::duration<double>(t1 - t0).count();
    if (counters) {
      const CounterValues after = counters->read();
      // Subtract the outer read and every read the phase meter made inside.
      const i64 reads = 1 + static_cast<i64>(reads_of(engine) - meter_reads);
      stats.instructions += after.instructions - before.instructions - reads * counters->read_cost().instructions;
      stats.cycles += after.cycles - before.cycles - reads * counters->read_cost().cycles;
    }
    (committed ? stats.commits : stats.aborts) += 1;
    ++done;
    // A timed run stops on the first transaction past its limit (the clock
    // was read for the latency anyway), whatever the speed of the stack.
    if (config.seconds > 0 && std::chrono::duration<double>(t1 - start).count() >= config.seconds) break;
    if (done % config.progress_every == 0) {
      if (progress && !progress(done, limit)) {
        result.interrupted = true;
        break;
      }
    }
  }
  result.elapsed_seconds = seconds_since(start);
  result.cpu_seconds = thread_cpu_seconds() - cpu_start;
  result.transactions = done;
  // The phase totals of the transactions only: the consistency check below
  // runs on the same (metered) engine.
  if constexpr (requires { engine.meter().totals(); }) {
    for (int p = 0; p < kPhaseCount; ++p) {
      const auto& t = engine.meter().totals()[p];
      result.phases[p] = PhaseCount{t.instructions, t.cycles, t.calls};
    }
  }
  if constexpr (requires { engine.pages().end_run(); }) result.pool = engine.pages().end_run();  // before the check reads every page
  if (config.check_consistency) result.consistency = check_consistency(db);
  return result;
}

// Loads the database on engine E, runs the mix, checks consistency.
template <class E>
RunResult run_on(E& engine, const RunConfig& config, const ProgressFn& progress, PerfCounters* counters) {
  LoadedDatabase<E> loaded(engine, config);
  return run_loaded(engine, loaded, config, progress, counters);
}

// The engine's options for a configuration: page size, address space for
// the whole database and what the run adds, the disk pool's settings.
inline EngineOptions engine_options(const RunConfig& config) {
  EngineOptions options;
  options.page_size = config.page_size;
  // A transaction adds well under 1 KB; a timed run is sized for 1 GB/s.
  const size_t bytes = (size_t{192} << 20) * config.warehouses + (size_t{256} << 20) +
                       static_cast<size_t>(config.transactions + config.warmup_transactions) * 4096 +
                       static_cast<size_t>(config.seconds * static_cast<double>(size_t{1} << 30));
  options.capacity_pages = bytes / config.page_size;
  options.disk.fraction = config.pool_fraction;  // E5 disk stack only
  options.disk.data_dir = config.data_dir;
  options.disk.o_direct = config.o_direct;
  options.disk.trace_path = config.trace_path;
  options.disk.trace_format = config.trace_format;
  return options;
}

// Runs the configuration on stack S (an Engine stack) with the configured meter.
template <class S>
RunResult run_stack(const RunConfig& config, const ProgressFn& progress) {
  using namespace detail;
  EngineOptions options = engine_options(config);
  std::unique_ptr<LogFile> log_file;
  if constexpr (kFlushesLog<S>) {
    log_file = std::make_unique<LogFile>(config.log_dir);
    options.log_path = log_file->path();
  }

  RunResult result;
  if (config.meter == "perf") {
    PerfCounters counters;
    if (!counters.open())
      throw std::runtime_error("meter perf: hardware counters unavailable: " + counters.error() +
                               " (count instructions with callgrind instead)");
    counters.calibrate();
    Engine<S, PerfMeter> engine(options, PerfMeter(counters));
    engine.meter().reset();
    result = run_on(engine, config, progress, &counters);
    result.counters.meter = "perf";
    result.counters.read_cost_instructions = counters.read_cost().instructions;
    result.counters.read_cost_cycles = counters.read_cost().cycles;
    result.log_bytes_written = engine.log().bytes_written();
    result.log_syncs = engine.log().syncs();
  } else {
    Engine<S> engine(options);
    result = run_on(engine, config, progress, nullptr);
    result.log_bytes_written = engine.log().bytes_written();
    result.log_syncs = engine.log().syncs();
  }
  result.components = S::describe();
  return result;
}

// The optimal kernel: no stack, no meter.
inline RunResult run_optimal(const RunConfig& config, const ProgressFn& progress) {
  MemEngine engine;
  RunResult result = run_on(engine, config, progress, nullptr);
  result.components = {{"kernel", "hand-built in-memory B-tree, no transaction support"}};
  return result;
}

// Each stack is compiled in its own translation unit (driver/tpcc/stacks/*.cpp).
extern template RunResult run_stack<BareStack<GenericKeyCompare>>(const RunConfig&, const ProgressFn&);
extern template RunResult run_stack<BareStack<IntegerKeyCompare>>(const RunConfig&, const ProgressFn&);

}  // namespace dbrepro::tpcc

// E1's ladder stacks, one line per step with a stack of its own (stack/ladder.hpp),
// generated by the build with their files (driver/tpcc/stacks/ladder_step.cpp.in).
#include "ladder_stack_externs.hpp"
