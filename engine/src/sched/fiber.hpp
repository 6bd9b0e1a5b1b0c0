#pragma once
// A user-level fiber on ucontext: its own mmap'd stack, entered with resume()
// from a scheduler context and leaving with yield(). swapcontext saves and
// restores registers and the signal mask: that is the switch's real cost.
#include <ucontext.h>

#include <exception>
#include <functional>

#include "common/types.hpp"

namespace dbrepro::sched {

class Fiber {
 public:
  static constexpr size_t kStackBytes = 256 * 1024;

  explicit Fiber(std::function<void()> body);
  ~Fiber();
  Fiber(const Fiber&) = delete;
  Fiber& operator=(const Fiber&) = delete;

  void resume();  // run until the fiber yields or finishes; rethrows the body's exception
  void yield();   // from inside the fiber: back to whoever resumed it
  bool finished() const { return finished_; }

 private:
  static void trampoline(unsigned hi, unsigned lo);

  std::function<void()> body_;
  void* stack_ = nullptr;
  ucontext_t context_{};
  ucontext_t caller_{};
  bool finished_ = false;
  std::exception_ptr error_;  // an exception may not unwind past makecontext's frame
};

}  // namespace dbrepro::sched
