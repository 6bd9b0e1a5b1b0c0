#include "driver/quantum/run.hpp"

#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <time.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <latch>
#include <memory>
#include <optional>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "common/page_size.hpp"
#include "sched/fiber_scheduler.hpp"
#include "sched/ts_linux.hpp"
#include "sched/ts_table.hpp"

namespace dbrepro::sched {
namespace {

struct Switches {
  u64 voluntary = 0, involuntary = 0;
};
Switches thread_switches() {
  rusage usage{};
  ::getrusage(RUSAGE_THREAD, &usage);
  return {static_cast<u64>(usage.ru_nvcsw), static_cast<u64>(usage.ru_nivcsw)};
}

double seconds_between(i64 from_ns, i64 to_ns) { return static_cast<double>(to_ns - from_ns) * 1e-9; }

u32 cpu_of(u32 session, u32 cpus) { return session % cpus; }

// The n-th CPU of the affinity mask (so "CPU 0" works inside a restricted cpuset).
int nth_allowed_cpu(u32 n) {
  cpu_set_t set;
  CPU_ZERO(&set);
  ::sched_getaffinity(0, sizeof set, &set);
  for (int cpu = 0, seen = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &set) && static_cast<u32>(seen++) == n) return cpu;
  throw std::invalid_argument("cpus: CPU index " + std::to_string(n) + " is not in this process's affinity mask");
}

cpu_set_t one_cpu(u32 n) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(nth_allowed_cpu(n), &set);
  return set;
}

// Where a session (engine: a worker) may run: its own CPU when pinned, any of
// the run's `cpus` CPUs when not (the kernel places and migrates it).
cpu_set_t placement(const SessionsConfig& config, u32 cpu) {
  if (config.pinned) return one_cpu(cpu);
  cpu_set_t set;
  CPU_ZERO(&set);
  for (u32 n = 0; n < config.cpus; ++n) CPU_SET(nth_allowed_cpu(n), &set);
  return set;
}

// Runs the configured workload, calling check() at its cheap points and
// unit() after each unit of work; the session's latch counts go to `latch`.
template <class Table, class Check, class Unit>
double run_workload(const SessionsConfig& config, Table* table, LatchCounters& latch, Check&& check, Unit&& unit) {
  if (config.workload == WorkloadKind::kCpu) return cpu_session(config.cpu_iterations, check, unit);
  return static_cast<double>(scan_session(*table, config.passes, latch, check, unit));
}

// The one table every memory-bound session scans, loaded once; none for the CPU workload.
template <class Latch>
std::unique_ptr<SharedTable<Latch>> make_table(const SessionsConfig& config) {
  if (config.workload != WorkloadKind::kMemory) return nullptr;
  return std::make_unique<SharedTable<Latch>>(
      SharedTableOptions{config.table_bytes, config.page_size, config.cache_over_table, config.latches});
}

template <class Table>
void finish(SessionsResult& result, const Table* table) {
  if (table) {
    result.table_bytes = static_cast<double>(table->bytes());
    result.cache_bytes = static_cast<double>(table->cache_bytes());
    result.latches = table->latches();
  }
  for (const auto& s : result.sessions) result.makespan_seconds = std::max(result.makespan_seconds, s.wall_seconds);
}

double rr_interval_ms() {
  timespec ts{};
  if (::sched_rr_get_interval(0, &ts) != 0) return -1;
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) * 1e-6;
}

}  // namespace

u32 available_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof set, &set) != 0) return 1;
  return static_cast<u32>(CPU_COUNT(&set));
}

void validate(const SessionsConfig& c) {
  if (c.cpus < 1 || c.cpus > available_cpus())
    throw std::invalid_argument("cpus: must be in 1.." + std::to_string(available_cpus()) + ", got " +
                                std::to_string(c.cpus));
  if (c.sessions_per_cpu < 1) throw std::invalid_argument("sessions_per_cpu: must be >= 1");
  if (!(c.quantum_ms > 0)) throw std::invalid_argument("quantum_ms: must be > 0");
  // Each setting's own range holds whichever workload runs (the table states it so).
  if (c.cpu_iterations < 1) throw std::invalid_argument("cpu_iterations: must be >= 1");
  if (c.passes < 1) throw std::invalid_argument("passes: must be >= 1");
  check_page_size("page_size", c.page_size, kMinBlockSize, kMaxPageSize);  // the page cache's block
  if (c.table_bytes < c.page_size)
    throw std::invalid_argument("table_mb: must hold at least one page (" + std::to_string(c.page_size) + " bytes)");
  if (c.latches < 1) throw std::invalid_argument("latches: must be >= 1");
  if (!(c.cache_over_table >= 1.0))
    throw std::invalid_argument("cache_over_table: the cache must hold the table (>= 1)");
}

namespace {

template <class Table>
SessionsResult run_engine(const SessionsConfig& config, Table* table) {
  const u32 total = config.cpus * config.sessions_per_cpu;
  SessionsResult result{"engine", 0, 0, 0, 0, std::vector<SessionStats>(total)};
  const i64 quantum_ns = static_cast<i64>(config.quantum_ms * 1e6);
  SteadyClock clock;
  std::latch start(1);
  i64 t0 = 0;
  std::vector<std::exception_ptr> errors(config.cpus);
  std::vector<std::thread> workers;
  for (u32 cpu = 0; cpu < config.cpus; ++cpu) {
    workers.emplace_back([&, cpu] {
      try {
        const cpu_set_t set = placement(config, cpu);
        ::pthread_setaffinity_np(::pthread_self(), sizeof set, &set);
        SteadyClock worker_clock;
        FiberScheduler<SteadyClock> scheduler(worker_clock, quantum_ns);
        std::vector<u32> mine;
        for (u32 s = 0; s < total; ++s)
          if (cpu_of(s, config.cpus) == cpu) mine.push_back(s);
        for (u32 s : mine)
          scheduler.add([&, s](FiberScheduler<SteadyClock>& sch) {
            UnitMeter meter([&sch] { return std::pair{sch.current_cpu_seconds(), sch.current_switches()}; });
            LatchCounters latch;  // on the fiber's own stack: no line shared with another session
            result.sessions[s].result = run_workload(config, table, latch, [&sch] { sch.check(); }, meter);
            result.sessions[s].switch_cost = meter.fit();
            result.sessions[s].latch = latch;
          });
        start.wait();
        const Switches before = thread_switches();
        scheduler.run();
        const Switches after = thread_switches();
        for (size_t i = 0; i < mine.size(); ++i) {
          SessionStats& stats = result.sessions[mine[i]];
          const auto& fiber = scheduler.sessions()[i];
          stats.session = mine[i];
          stats.cpu = cpu;
          stats.wall_seconds = seconds_between(t0, fiber.end);
          stats.cpu_seconds = fiber.cpu_seconds;
          stats.engine_switches = fiber.switches;
          stats.effective_quantum_ms = config.quantum_ms;
          // The worker's kernel switches, shared by its sessions: charged to the first.
          if (i == 0) {
            stats.voluntary_switches = after.voluntary - before.voluntary;
            stats.involuntary_switches = after.involuntary - before.involuntary;
          }
        }
      } catch (...) {
        errors[cpu] = std::current_exception();
      }
    });
  }
  t0 = clock.now();
  start.count_down();
  for (auto& w : workers) w.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
  finish(result, table);
  return result;
}

}  // namespace

SessionsResult run_engine_scheduler(const SessionsConfig& config) {
  validate(config);
  return with_latch(config.latch, config.latch_spin, [&]<class Latch>() {
    const auto table = make_table<Latch>(config);
    return run_engine(config, table.get());
  });
}

namespace {

template <class Table>
struct OsSession {
  const SessionsConfig* config;
  Table* table;
  std::latch* start;
  const std::atomic<bool>* abort;
  const i64* t0;
  SessionStats* stats;
  TsSessionThread* ts;  // the TS dispatcher's view of this thread (os_ts), else null
  i64 start_offset_ns;  // when it starts after the common start (os_ts's staggered starts; else 0)
};

// Sleeps (blocked, no CPU) until `ns` of the monotonic clock, SteadyClock's.
void sleep_until_ns(i64 ns) {
  const timespec at{static_cast<time_t>(ns / 1'000'000'000), static_cast<long>(ns % 1'000'000'000)};
  while (::clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, nullptr) == EINTR) {
  }
}

template <class Table>
void* os_session_main(void* arg) {
  auto& s = *static_cast<OsSession<Table>*>(arg);
  if (s.ts) s.ts->tid.store(static_cast<int>(::gettid()), std::memory_order_release);
  s.start->wait();
  if (s.abort->load()) {  // no dispatcher runs (the driver released every session)
    if (s.ts) s.ts->finished.store(true, std::memory_order_release);
    return nullptr;
  }
  // A staggered start: asleep until its turn, as the article's sessions waited for their logins.
  if (s.start_offset_ns > 0) sleep_until_ns(*s.t0 + s.start_offset_ns);
  s.stats->start_seconds = static_cast<double>(s.start_offset_ns) * 1e-9;
  // Read back while every session is running: the timeslice the kernel gives this thread.
  s.stats->effective_quantum_ms = rr_interval_ms();
  const Switches before = thread_switches();
  const double cpu_before = thread_cpu_seconds();
  UnitMeter meter([] {
    const Switches now = thread_switches();
    return std::pair{thread_cpu_seconds(), now.voluntary + now.involuntary};
  });
  LatchCounters latch;  // on this thread's stack: no line shared with another session
  s.stats->result = run_workload(*s.config, s.table, latch, [] {}, meter);
  s.stats->switch_cost = meter.fit();
  s.stats->latch = latch;
  const i64 end = SteadyClock{}.now();
  const Switches after = thread_switches();
  s.stats->wall_seconds = seconds_between(*s.t0, end);
  s.stats->cpu_seconds = thread_cpu_seconds() - cpu_before;
  s.stats->voluntary_switches = after.voluntary - before.voluntary;
  s.stats->involuntary_switches = after.involuntary - before.involuntary;
  if (s.ts) ts_session_done(*s.ts);  // waits until the dispatcher lets the thread go (sched/ts_linux.hpp)
  return nullptr;
}

// The OS schedulers as policy types, chosen once at the run's start: each
// says how a session thread is created and what runs beside the sessions
// (only TS has a dispatcher); the sessions' own loop is the same code.
struct RoundRobinPolicy {
  static constexpr const char* kName = "os_rr";
  static constexpr int kPolicy = SCHED_RR;
  static constexpr bool kDispatcher = false;
  static constexpr int priority() { return 1; }
};

struct FairPolicy {
  static constexpr const char* kName = "os_fair";
  static constexpr int kPolicy = SCHED_OTHER;
  static constexpr bool kDispatcher = false;
  static constexpr int priority() { return 0; }
};

// Solaris's TS class emulated (sched/ts_linux.hpp): sessions SCHED_FIFO at the
// priority of the level they enter at, a dispatcher thread above them; the
// class, its table and how the sessions start are data (TsClassRun).
struct TimeSharingPolicy {
  static constexpr const char* kName = "os_ts";
  static constexpr int kPolicy = SCHED_FIFO;
  static constexpr bool kDispatcher = true;
  int priority() const { return ts_rt_priority(run.entry_level); }
  TsClassRun run;
  i64 start_gap_ns = 0;  // session k starts k x this after the common start
  double update_phase = 1.0;
};

// Thread attributes: placed (pinned to one CPU or free on all), with the policy set explicitly
// (not inherited from the caller).
struct ThreadAttr {
  pthread_attr_t attr;
  ThreadAttr(const cpu_set_t& set, int policy, int priority) {
    ::pthread_attr_init(&attr);
    ::pthread_attr_setaffinity_np(&attr, sizeof set, &set);
    ::pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
    sched_param param{};
    param.sched_priority = priority;
    ::pthread_attr_setschedpolicy(&attr, policy);
    ::pthread_attr_setschedparam(&attr, &param);
  }
  ~ThreadAttr() { ::pthread_attr_destroy(&attr); }
};

std::string create_error(int code, int policy) {
  if (code == EPERM && policy != SCHED_OTHER)
    return std::string(policy == SCHED_RR ? "SCHED_RR" : "SCHED_FIFO") +
           " needs root or CAP_SYS_NICE (a privileged container): pthread_create: " + std::string(std::strerror(code));
  return "pthread_create: " + std::string(std::strerror(code));
}

struct TsDispatcherThread {
  const TimeSharingPolicy* policy;
  std::span<TsSessionThread> sessions;
  TsDispatcherStats stats;
};

void* ts_dispatcher_main(void* arg) {
  auto& d = *static_cast<TsDispatcherThread*>(arg);
  d.stats = run_ts_dispatcher(d.sessions, d.policy->run);
  return nullptr;
}

void record_dispatcher(SessionsResult& result, const TsDispatcherStats& stats, const TimeSharingPolicy& policy) {
  const TsTimes& times = policy.run.times;
  result.dispatcher = {stats.cpu_seconds,   stats.wall_seconds, stats.ticks,     stats.late_ticks,
                       stats.updates,       stats.priority_sets, stats.preemptions, stats.timed_out,
                       stats.priority_end,  policy.update_phase};
  for (size_t i = 0; i < result.sessions.size() && i < stats.threads.size(); ++i) {
    SessionStats& s = result.sessions[i];
    s.ts_expiries = stats.threads[i].expiries;
    s.ts_boosts = stats.threads[i].boosts;
    s.ts_final_level = stats.threads[i].final_level;
    s.effective_quantum_ms = static_cast<double>(times.quantum_ns[s.ts_final_level]) * 1e-6;
  }
}

template <class Policy, class Table>
SessionsResult run_os(const SessionsConfig& config, const Policy& policy, Table* table) {
  const u32 total = config.cpus * config.sessions_per_cpu;
  SessionsResult result{Policy::kName, 0, 0, 0, 0, std::vector<SessionStats>(total)};
  std::latch start(1);
  std::atomic<bool> abort{false};
  i64 t0 = 0;
  std::vector<OsSession<Table>> args(total);
  std::vector<TsSessionThread> ts(Policy::kDispatcher ? total : 0);
  std::vector<pthread_t> threads;
  std::optional<std::string> error;
  for (u32 s = 0; s < total; ++s) {
    result.sessions[s].session = s;
    result.sessions[s].cpu = cpu_of(s, config.cpus);
    i64 offset = 0;
    if constexpr (Policy::kDispatcher) offset = static_cast<i64>(s) * policy.start_gap_ns;
    args[s] = {&config, table,  &start, &abort, &t0, &result.sessions[s], Policy::kDispatcher ? &ts[s] : nullptr,
               offset};
    ThreadAttr attr(placement(config, result.sessions[s].cpu), Policy::kPolicy, policy.priority());
    pthread_t thread;
    const int code = ::pthread_create(&thread, &attr.attr, &os_session_main<Table>, &args[s]);
    if (code != 0) {
      error = create_error(code, Policy::kPolicy);
      break;
    }
    threads.push_back(thread);
    if constexpr (Policy::kDispatcher) {
      ts[s].thread = thread;
      ts[s].cpu = config.pinned ? nth_allowed_cpu(result.sessions[s].cpu) : -1;
    }
  }
  // TS: the dispatcher starts before the sessions do, above them, on the run's CPUs.
  [[maybe_unused]] TsDispatcherThread dispatcher{};
  [[maybe_unused]] pthread_t dispatcher_thread{};
  bool dispatching = false;
  if constexpr (Policy::kDispatcher) {
    if (!error) {
      dispatcher = {&policy, std::span<TsSessionThread>(ts), {}};
      SessionsConfig everywhere = config;
      everywhere.pinned = false;
      ThreadAttr attr(placement(everywhere, 0), SCHED_FIFO, kTsDispatcherPriority);
      const int code = ::pthread_create(&dispatcher_thread, &attr.attr, &ts_dispatcher_main, &dispatcher);
      if (code != 0) error = create_error(code, SCHED_FIFO);
      dispatching = code == 0;
    }
  }
  if (error) abort.store(true);
  // Sessions wait on the latch (blocked, not spinning), so a real-time
  // session cannot starve this thread while it is still creating the others.
  t0 = SteadyClock{}.now();
  start.count_down();
  if constexpr (Policy::kDispatcher) {
    if (dispatching) {
      // The dispatcher sets the sessions' priorities (pthread_setschedparam) until each has said it
      // is done: it is joined before they are, so that it never touches a joined thread, whose
      // descriptor is freed (a quick run's os_ts memory cell segfaulted in libc that way). After an
      // error a session may never start and never say so: mark every one done for the dispatcher.
      if (error) {
        for (auto& s : ts) s.finished.store(true, std::memory_order_release);
      }
      ::pthread_join(dispatcher_thread, nullptr);
      record_dispatcher(result, dispatcher.stats, policy);
    }
  }
  for (pthread_t t : threads) ::pthread_join(t, nullptr);
  if (error) throw std::runtime_error(*error);
  finish(result, table);
  return result;
}

template <class Policy>
SessionsResult run_os_with(const SessionsConfig& config, const Policy& policy) {
  validate(config);
  return with_latch(config.latch, config.latch_spin, [&]<class Latch>() {
    const auto table = make_table<Latch>(config);
    return run_os(config, policy, table.get());
  });
}

}  // namespace

SessionsResult run_os_scheduler(const SessionsConfig& config, OsPolicy policy) {
  if (policy == OsPolicy::kRoundRobin) return run_os_with(config, RoundRobinPolicy{});
  return run_os_with(config, FairPolicy{});
}

// The update's phase: the given one, or (0) one drawn for this run, so that repeats sample it.
double update_phase(double given) {
  if (given > 0) return given;
  std::random_device device;
  // (0, 1]: the first update falls within the first period, never at the start itself.
  return 1.0 - std::uniform_real_distribution<double>(0.0, 1.0)(device);
}

SessionsResult run_ts_scheduler(const SessionsConfig& config, const TsSettings& ts) {
  if (!(ts.time_scale > 0)) throw std::invalid_argument("ts_time_scale: must be > 0");
  if (!(ts.time_limit_s > 0)) throw std::invalid_argument("time_limit_s: must be > 0");
  if (ts.entry_level >= kTsLevels) throw std::invalid_argument("ts_entry_level: must be below 60");
  if (!(ts.update_phase >= 0 && ts.update_phase <= 1)) throw std::invalid_argument("ts_update_phase: must be in 0..1");
  if (!(ts.start_gap_ms >= 0)) throw std::invalid_argument("start_gap_ms: must be >= 0");
  const TsReading& reading = ts_reading(ts.reading);
  TimeSharingPolicy policy;
  policy.run.table = reading.table;
  policy.run.times = ts_times(reading, config.quantum_ms, ts.time_scale);
  policy.run.entry_level = static_cast<u8>(ts.entry_level);
  policy.update_phase = update_phase(ts.update_phase);
  policy.run.first_update_ns = static_cast<i64>(policy.update_phase * static_cast<double>(policy.run.times.update_ns));
  policy.run.limit_ns = static_cast<i64>(ts.time_limit_s * 1e9);
  policy.start_gap_ns = static_cast<i64>(ts.start_gap_ms * ts.time_scale * 1e6 + 0.5);
  return run_os_with(config, policy);
}

}  // namespace dbrepro::sched
