#include "proc/child_process.hpp"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <utility>

namespace dbrepro::proc {

ChildProcess::ChildProcess(const std::string& who, const Body& body) {
  int pair[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0)
    throw std::runtime_error(who + ": socketpair: " + std::strerror(errno));
  const pid_t parent = ::getpid();
  pid_ = ::fork();
  if (pid_ < 0) {
    const int error = errno;
    ::close(pair[0]);
    ::close(pair[1]);
    throw std::runtime_error(who + ": fork: " + std::strerror(error));
  }
  if (pid_ == 0) {
    ::close(pair[0]);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(1);  // the parent died before the line above
    int status = 1;
    try {
      status = body(pair[1]);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s: %s\n", who.c_str(), e.what());
    }
    ::_exit(status);
  }
  ::close(pair[1]);
  channel_ = pair[0];
}

ChildProcess::ChildProcess(ChildProcess&& other) noexcept
    : pid_(std::exchange(other.pid_, -1)), channel_(std::exchange(other.channel_, -1)) {}

ChildProcess& ChildProcess::operator=(ChildProcess&& other) noexcept {
  if (this != &other) {
    wait();
    pid_ = std::exchange(other.pid_, -1);
    channel_ = std::exchange(other.channel_, -1);
  }
  return *this;
}

void ChildProcess::kill() const {
  if (pid_ > 0) ::kill(pid_, SIGKILL);
}

void ChildProcess::close_channel() {
  if (channel_ >= 0) ::close(channel_);
  channel_ = -1;
}

int ChildProcess::wait() {
  close_channel();
  if (pid_ <= 0) return -1;
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
  return status;
}

}  // namespace dbrepro::proc
