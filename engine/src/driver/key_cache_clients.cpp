#include "driver/key_cache_clients.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <stdexcept>

#include "sysbench/point_client.hpp"

namespace dbrepro::keycache_driver {

namespace {
// One client thread's connection and its query (sysbench's thread with its MySQL connection).
struct SocketQuery {
  sysbench::PointClient client;
  sysbench::PointReply reply;

  explicit SocketQuery(const std::string& path) : client(path) {}
  u64 operator()(const std::vector<u32>& points) {
    if (!client.query(points, reply)) throw std::runtime_error("the server closed the connection");
    if (!reply.ok) throw std::runtime_error("the server refused a query: " + reply.error);
    return reply.rows;
  }
};

double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + ts.tv_nsec * 1e-9;
}

void read_exact(int fd, void* buffer, size_t size, const char* what) {
  auto* at = static_cast<char*>(buffer);
  while (size > 0) {
    const ssize_t got = ::read(fd, at, size);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) throw std::runtime_error(std::string("client process: ") + what);
    at += got;
    size -= static_cast<size_t>(got);
  }
}

void write_exact(int fd, const void* buffer, size_t size) {
  const auto* at = static_cast<const char*>(buffer);
  while (size > 0) {
    const ssize_t put = ::send(fd, at, size, MSG_NOSIGNAL);
    if (put < 0 && errno == EINTR) continue;
    if (put <= 0) throw std::runtime_error("client process: the control channel is closed");
    at += put;
    size -= static_cast<size_t>(put);
  }
}

[[noreturn]] void client_main(int control, const std::string& path, pid_t parent) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(1);
  for (;;) {
    ClientCell cell;
    const ssize_t got = ::recv(control, &cell, sizeof cell, MSG_WAITALL);
    if (got != static_cast<ssize_t>(sizeof cell)) ::_exit(got == 0 ? 0 : 1);  // closed: done
    ClientReport report;
    try {
      report = run_socket_clients(path, cell, true);
    } catch (const std::exception& e) {
      std::strncpy(report.error, e.what(), sizeof report.error - 1);
    }
    try {
      write_exact(control, &report, sizeof report);
    } catch (const std::exception&) {
      ::_exit(1);
    }
  }
}
}  // namespace

ClientReport run_socket_clients(const std::string& socket_path, const ClientCell& cell, bool measure_process,
                                const std::function<void()>& at_start, const std::function<void()>& at_end) {
  double cpu_before = 0, cpu_used = 0;
  rusage before{}, after{};
  ClientReport report = run_client_threads(
      cell, [&](u32) { return SocketQuery(socket_path); },
      [&] {
        if (at_start) at_start();
        if (!measure_process) return;
        cpu_before = cpu_seconds();
        getrusage(RUSAGE_SELF, &before);
      },
      [&] {
        if (measure_process) {
          getrusage(RUSAGE_SELF, &after);
          cpu_used = cpu_seconds() - cpu_before;
        }
        if (at_end) at_end();
      });
  report.connections = cell.threads;
  if (measure_process) {
    report.cpu_seconds = cpu_used;
    report.involuntary_switches = static_cast<u64>(after.ru_nivcsw - before.ru_nivcsw);
    report.voluntary_switches = static_cast<u64>(after.ru_nvcsw - before.ru_nvcsw);
  }
  return report;
}

ClientProcess::ClientProcess(std::string socket_path) {
  int pair[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0)
    throw std::runtime_error(std::string("client process: socketpair: ") + std::strerror(errno));
  const pid_t parent = ::getpid();
  pid_ = ::fork();
  if (pid_ < 0) {
    const int error = errno;
    ::close(pair[0]);
    ::close(pair[1]);
    throw std::runtime_error(std::string("client process: fork: ") + std::strerror(error));
  }
  if (pid_ == 0) {
    ::close(pair[0]);
    client_main(pair[1], socket_path, parent);
  }
  ::close(pair[1]);
  control_ = pair[0];
}

ClientProcess::~ClientProcess() {
  if (control_ >= 0) ::close(control_);  // the child reads the end of the stream and exits
  if (pid_ > 0) {
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
  }
}

void ClientProcess::start(const ClientCell& cell) { write_exact(control_, &cell, sizeof cell); }

ClientReport ClientProcess::finish(i64 deadline_ns) {
  for (;;) {
    pollfd ready{control_, POLLIN, 0};
    const i64 left_ms = std::max<i64>(0, (deadline_ns - now_ns()) / 1'000'000);
    const int got = ::poll(&ready, 1, static_cast<int>(std::min<i64>(left_ms, 1'000'000)));
    if (got > 0) break;
    if (got < 0 && errno == EINTR) continue;
    if (got == 0 && now_ns() < deadline_ns) continue;
    ::kill(pid_, SIGKILL);  // hung: the destructor reaps it
    throw std::runtime_error("client process: no report by the deadline (killed)");
  }
  ClientReport report;
  read_exact(control_, &report, sizeof report, "ended without a report");
  return report;
}

}  // namespace dbrepro::keycache_driver
