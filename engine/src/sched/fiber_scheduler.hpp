#pragma once
// The engine's scheduler on one worker thread: sessions are fibers run
// round-robin; a running session calls check() at cheap points and gives the
// worker up once its quantum has expired and another session is ready (alone,
// it just starts a new quantum, as the kernel does). Cooperative, like a
// database-level scheduler (SQL Server's SQLOS).
#include <deque>
#include <memory>
#include <vector>

#include "sched/clock.hpp"
#include "sched/fiber.hpp"

namespace dbrepro::sched {

template <class Clock>
class FiberScheduler {
 public:
  struct Session {
    std::unique_ptr<Fiber> fiber;
    u64 switches = 0;      // times it gave the worker to another session
    double cpu_seconds = 0;
    i64 end = 0;           // clock reading when it finished
  };

  FiberScheduler(Clock& clock, i64 quantum) : clock_(clock), quantum_(quantum) {}

  // body(scheduler) runs the session's work, calling scheduler.check().
  template <class Body>
  void add(Body body) {
    sessions_.push_back({std::make_unique<Fiber>([this, body]() mutable { body(*this); })});
  }

  void run() {
    std::deque<size_t> ready;
    for (size_t i = 0; i < sessions_.size(); ++i) ready.push_back(i);
    ready_ = &ready;
    while (!ready.empty()) {
      current_ = ready.front();
      ready.pop_front();
      Session& session = sessions_[current_];
      cpu_start_ = thread_cpu_seconds();
      slice_start_ = clock_.now();
      session.fiber->resume();
      session.cpu_seconds += thread_cpu_seconds() - cpu_start_;
      if (session.fiber->finished())
        session.end = clock_.now();
      else
        ready.push_back(current_);
    }
    ready_ = nullptr;
  }

  // The quantum check, called from inside the running session.
  void check() {
    if (clock_.now() - slice_start_ < quantum_) return;
    if (ready_->empty()) {
      ++renewals_;
      slice_start_ = clock_.now();
      return;
    }
    ++sessions_[current_].switches;
    sessions_[current_].fiber->yield();
  }

  // From inside the running session: its CPU time and switches so far.
  double current_cpu_seconds() const {
    return sessions_[current_].cpu_seconds + thread_cpu_seconds() - cpu_start_;
  }
  u64 current_switches() const { return sessions_[current_].switches; }

  const std::vector<Session>& sessions() const { return sessions_; }
  u64 renewals() const { return renewals_; }  // expiries with nobody else ready

 private:
  Clock& clock_;
  i64 quantum_;
  std::vector<Session> sessions_;
  std::deque<size_t>* ready_ = nullptr;
  size_t current_ = 0;
  i64 slice_start_ = 0;
  double cpu_start_ = 0;
  u64 renewals_ = 0;
};

}  // namespace dbrepro::sched
