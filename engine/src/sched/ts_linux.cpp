#include "sched/ts_linux.hpp"

#include <fcntl.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "sched/clock.hpp"
#include "sched/ts_dispatcher.hpp"

namespace dbrepro::sched {
namespace {

i64 ns_of(const timespec& ts) { return static_cast<i64>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec; }

timespec timespec_of(i64 ns) {
  return timespec{static_cast<time_t>(ns / 1'000'000'000), static_cast<long>(ns % 1'000'000'000)};
}

i64 monotonic_ns() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return ns_of(ts);
}

struct MonotonicClock {
  i64 now() const { return monotonic_ns(); }
};

// -1 once the thread has exited (its clock is gone).
i64 cpu_ns(clockid_t clock) {
  timespec ts{};
  if (::clock_gettime(clock, &ts) != 0) return -1;
  return ns_of(ts);
}

// The state letter of a thread of this process in /proc (R: running or runnable), '?' if unreadable.
char proc_state(int tid) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/self/task/%d/stat", tid);
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return '?';
  char buf[256];
  const ssize_t n = ::read(fd, buf, sizeof buf - 1);
  ::close(fd);
  if (n <= 0) return '?';
  buf[n] = '\0';
  const char* paren = std::strrchr(buf, ')');  // the name may hold spaces and parentheses
  return paren && paren[1] == ' ' ? paren[2] : '?';
}

// This thread's SCHED_FIFO priority as the kernel has it (0: another policy).
int own_fifo_priority() {
  sched_param p{};
  return ::sched_getscheduler(0) == SCHED_FIFO && ::sched_getparam(0, &p) == 0 ? p.sched_priority : 0;
}

class Mechanism {
 public:
  Mechanism(std::span<TsSessionThread> sessions, TsDispatcherStats& stats) : sessions_(sessions), stats_(stats) {}

  void set(u32 t, int priority) {
    sched_param p{};
    p.sched_priority = priority;
    ::pthread_setschedparam(sessions_[t].thread, SCHED_FIFO, &p);
    ++stats_.priority_sets;
  }
  // The back of `level`'s queue: Linux puts a raised thread at the back, a lowered one at the front,
  // so a drop (or a requeue at the same level) parks it just below its new level first: only the
  // threads of that level can take the CPU in between, and they rank before it anyway.
  void to_back(u32 t, u32 from, u32 to) {
    if (to <= from) set(t, ts_rt_priority(to) - 1);
    set(t, ts_rt_priority(to));
  }
  void demote_all() {
    sched_param p{};
    for (u32 t = 0; t < sessions_.size(); ++t) ::pthread_setschedparam(sessions_[t].thread, SCHED_OTHER, &p);
  }

 private:
  std::span<TsSessionThread> sessions_;
  TsDispatcherStats& stats_;
};

}  // namespace

TsDispatcherStats run_ts_dispatcher(std::span<TsSessionThread> sessions, const TsClassRun& run) {
  const u32 n = static_cast<u32>(sessions.size());
  const TsTimes& times = run.times;
  const i64 limit_ns = run.limit_ns;
  TsDispatcherStats stats;
  stats.threads.resize(n);
  const double cpu_start = thread_cpu_seconds();
  const i64 start = monotonic_ns();
  MonotonicClock clock;
  TsDispatcher<MonotonicClock> core(*run.table, times, clock, n, run.entry_level, run.first_update_ns);
  Mechanism mechanism(sessions, stats);
  std::vector<clockid_t> clocks(n);
  std::vector<i64> last_cpu(n, 0);
  std::vector<bool> ran(n, false), live(n, true);
  for (u32 t = 0; t < n; ++t) {
    if (::pthread_getcpuclockid(sessions[t].thread, &clocks[t]) != 0) live[t] = false;
    else last_cpu[t] = std::max<i64>(0, cpu_ns(clocks[t]));
  }
  u32 remaining = n;
  i64 next = start + times.tick_ns;
  while (remaining > 0) {
    const timespec wake = timespec_of(next);
    while (::clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &wake, nullptr) == EINTR) {
    }
    const i64 now = monotonic_ns();
    ++stats.ticks;
    if (now - next >= times.tick_ns) {
      ++stats.late_ticks;
      next = now;  // no burst of catch-up ticks
    }
    next += times.tick_ns;
    const int here = ::sched_getcpu();
    for (u32 t = 0; t < n; ++t) ran[t] = false;
    for (u32 t = 0; t < n; ++t) {
      if (!live[t]) continue;
      const i64 cpu = sessions[t].finished.load(std::memory_order_acquire) ? -1 : cpu_ns(clocks[t]);
      if (cpu < 0) {  // done (or gone): never touched again, so it may exit
        core.finish(t);
        live[t] = false;
        --remaining;
        ts_release(sessions[t]);
        continue;
      }
      ran[t] = cpu > last_cpu[t];
      if (const auto m = core.charge(t, cpu - last_cpu[t])) mechanism.to_back(t, m->from, m->to);
      last_cpu[t] = cpu;
    }
    // This tick preempted a session if one that may run on this CPU ran during the tick (a CPU whose
    // sessions all slept, a latch nap, was idle: nobody was switched out).
    bool preempted = false;
    for (u32 t = 0; t < n && !preempted; ++t) preempted = ran[t] && (sessions[t].cpu < 0 || sessions[t].cpu == here);
    stats.preemptions += preempted;
    if (core.update_due()) {
      const auto moves = core.update([&](u32 t) {
        if (!live[t] || ran[t]) return false;
        const int tid = sessions[t].tid.load(std::memory_order_acquire);
        if (tid == 0) return true;
        ++stats.proc_reads;
        return proc_state(tid) == 'R';
      });
      for (const TsMove& m : moves) mechanism.to_back(m.thread, m.from, m.to);
    }
    if (remaining > 0 && now - start > limit_ns) {
      mechanism.demote_all();
      stats.timed_out = true;
      break;
    }
  }
  for (auto& s : sessions) ts_release(s);  // at the limit: those still working exit when done
  stats.priority_end = own_fifo_priority();
  stats.updates = core.updates();
  for (u32 t = 0; t < n; ++t)
    stats.threads[t] = {core.thread(t).expiries, core.thread(t).boosts, core.thread(t).level};
  stats.wall_seconds = static_cast<double>(monotonic_ns() - start) * 1e-9;
  stats.cpu_seconds = thread_cpu_seconds() - cpu_start;
  return stats;
}

}  // namespace dbrepro::sched
