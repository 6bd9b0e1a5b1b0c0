#pragma once
// The engine's one fork harness (E2's client process, E3's user processes):
// a child that runs one function with its end of a socketpair, the parent
// keeping the other end to start it and read its report. The child never
// returns into the caller's code: it exits with the function's status, or 1
// (its reason on stderr) if the function throws; it is killed with the thread
// that forked it (PR_SET_PDEATHSIG), so a parent that dies leaves no clients
// behind. The parent's destructor closes its end (the child reads the end of
// its input) and reaps it, retrying on EINTR.
#include <sys/types.h>

#include <functional>
#include <string>

namespace dbrepro::proc {

class ChildProcess {
 public:
  using Body = std::function<int(int channel)>;

  // Forks; throws std::runtime_error "WHO: socketpair|fork: why".
  ChildProcess(const std::string& who, const Body& body);
  ChildProcess() = default;
  ~ChildProcess() { wait(); }
  ChildProcess(ChildProcess&& other) noexcept;
  ChildProcess& operator=(ChildProcess&& other) noexcept;
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  int channel() const { return channel_; }  // the parent's end: read and write
  pid_t pid() const { return pid_; }
  void kill() const;  // SIGKILL (a hung child); wait() still reaps it
  // Closes the parent's end only: a later child, forked with its siblings'
  // ends open, closes them so that each sees its own parent's close.
  void close_channel();
  // Closes the channel and reaps the child: its exit status (waitpid's), -1 if none was running.
  int wait();

 private:
  pid_t pid_ = -1;
  int channel_ = -1;
};

}  // namespace dbrepro::proc
