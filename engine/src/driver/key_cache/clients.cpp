#include "driver/key_cache/clients.hpp"

#include <poll.h>
#include <sys/resource.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <stdexcept>

#include "io/fd.hpp"
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

// The child's loop: a cell in, its report out, until the parent closes the channel.
int client_main(int control, const std::string& path) {
  for (;;) {
    ClientCell cell;
    const io::Transfer got = io::read_full(control, &cell, sizeof cell);
    if (!got.whole()) return got.ended_before_any() ? 0 : 1;  // closed: done
    ClientReport report;
    try {
      report = run_socket_clients(path, cell, true);
    } catch (const std::exception& e) {
      std::strncpy(report.error, e.what(), sizeof report.error - 1);
    }
    if (!io::send_all(control, &report, sizeof report).whole()) return 1;
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

ClientProcess::ClientProcess(std::string socket_path)
    : child_("client process", [path = std::move(socket_path)](int control) { return client_main(control, path); }) {}

void ClientProcess::start(const ClientCell& cell) {
  const io::Transfer t = io::send_all(child_.channel(), &cell, sizeof cell);
  if (!t.whole()) throw io::io_error("client process: the control channel", t);
}

ClientReport ClientProcess::finish(i64 deadline_ns) {
  for (;;) {
    pollfd ready{child_.channel(), POLLIN, 0};
    const i64 left_ms = std::max<i64>(0, (deadline_ns - now_ns()) / 1'000'000);
    const int got = ::poll(&ready, 1, static_cast<int>(std::min<i64>(left_ms, 1'000'000)));
    if (got > 0) break;
    if (got < 0 && errno == EINTR) continue;
    if (got == 0 && now_ns() < deadline_ns) continue;
    child_.kill();  // hung: the destructor reaps it
    throw std::runtime_error("client process: no report by the deadline (killed)");
  }
  ClientReport report;
  const io::Transfer t = io::read_full(child_.channel(), &report, sizeof report);
  if (!t.whole()) throw io::io_error("client process: ended without a report", t);
  return report;
}

}  // namespace dbrepro::keycache_driver
