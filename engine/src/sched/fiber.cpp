#include "sched/fiber.hpp"

#include <sys/mman.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>

namespace dbrepro::sched {

Fiber::Fiber(std::function<void()> body) : body_(std::move(body)) {
  stack_ = ::mmap(nullptr, kStackBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
  if (stack_ == MAP_FAILED) throw std::runtime_error(std::string("fiber stack: mmap: ") + std::strerror(errno));
  if (::getcontext(&context_) != 0) throw std::runtime_error("fiber: getcontext failed");
  context_.uc_stack.ss_sp = stack_;
  context_.uc_stack.ss_size = kStackBytes;
  context_.uc_link = &caller_;  // a finished body returns to the resumer
  // makecontext passes ints: split the pointer in two.
  const auto self = reinterpret_cast<std::uintptr_t>(this);
  ::makecontext(&context_, reinterpret_cast<void (*)()>(&Fiber::trampoline), 2, static_cast<unsigned>(self >> 32),
                static_cast<unsigned>(self & 0xffffffffu));
}

Fiber::~Fiber() { ::munmap(stack_, kStackBytes); }

void Fiber::trampoline(unsigned hi, unsigned lo) {
  auto* fiber = reinterpret_cast<Fiber*>((static_cast<std::uintptr_t>(hi) << 32) | lo);
  try {
    fiber->body_();
  } catch (...) {
    fiber->error_ = std::current_exception();
  }
  fiber->finished_ = true;
}

void Fiber::resume() {
  if (finished_) return;
  ::swapcontext(&caller_, &context_);
  if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
}

void Fiber::yield() { ::swapcontext(&context_, &caller_); }

}  // namespace dbrepro::sched
