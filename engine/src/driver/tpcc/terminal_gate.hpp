#pragma once
// Stops the terminals of a multi-threaded run between two transactions, so
// that a checkpoint sees no transaction in flight. Terminals call pass()
// before every transaction (one relaxed load while the gate is open).
#include <atomic>
#include <condition_variable>
#include <mutex>

namespace dbrepro::tpcc {

class TerminalGate {
 public:
  explicit TerminalGate(int terminals) : active_(terminals) {}

  void pass() {
    if (!closed_.load(std::memory_order_acquire)) return;
    std::unique_lock<std::mutex> guard(mutex_);
    ++parked_;
    changed_.notify_all();
    changed_.wait(guard, [&] { return !closed_.load(std::memory_order_relaxed); });
    --parked_;
  }

  // A terminal that stops for good.
  void leave() {
    std::lock_guard<std::mutex> guard(mutex_);
    --active_;
    changed_.notify_all();
  }

  // Returns once every active terminal waits in pass().
  void close() {
    std::unique_lock<std::mutex> guard(mutex_);
    closed_.store(true, std::memory_order_release);
    changed_.wait(guard, [&] { return parked_ >= active_; });
  }

  void open() {
    std::lock_guard<std::mutex> guard(mutex_);
    closed_.store(false, std::memory_order_release);
    changed_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::atomic<bool> closed_{false};
  int active_;
  int parked_ = 0;
};

}  // namespace dbrepro::tpcc
