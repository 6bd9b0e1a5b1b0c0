#pragma once
// sysbench's client threads for E2's timed runs (sysbench's --threads: each
// thread runs its event, one select_random_points, in a loop and waits for
// its result before the next). Three ways to reach the key cache:
//   direct                    the thread calls the key cache itself (no server);
//   client_server             the threads live in a second process, forked by
//                             ClientProcess, and each sends its queries over
//                             its own Unix-socket connection to a server thread
//                             (sysbench/point_server.hpp, MariaDB's role);
//   client_server_in_process  the same connections, with the client threads in
//                             the server's process (for tests).
// The timed window is two instants of the monotonic clock, which every
// process on the machine shares: a query counts when its reply arrives
// inside [start, end), whenever it was sent; threads stop sending at end.
#include <sys/types.h>

#include <chrono>
#include <functional>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "common/random.hpp"
#include "common/types.hpp"
#include "driver/key_cache/latency.hpp"
#include "proc/child_process.hpp"
#include "sysbench/point_stream.hpp"

namespace dbrepro::keycache_driver {

inline i64 now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
inline void sleep_until_ns(i64 t) {
  std::this_thread::sleep_until(std::chrono::steady_clock::time_point(std::chrono::nanoseconds(t)));
}

// One cell of clients; plain bytes, sent to the client process as they are.
struct ClientCell {
  u32 threads = 1;
  u32 points = 10;
  u64 seed = 1;          // of every thread's points (the same for each segments value of a cell)
  u64 table_rows = 0;    // the points are drawn in the thread's slice of 0..table_rows
  u32 distribution = 0;  // sysbench::KeyDistribution of the points (special or uniform)
  i64 start_ns = 0, end_ns = 0;
};

// What the clients saw; plain bytes, sent back by the client process.
struct ClientReport {
  u64 queries = 0;      // replies that arrived inside the window
  u64 rows = 0;         // rows in those replies
  u64 connections = 0;  // client connections opened (client/server modes)
  LatencyHistogram latency;  // send to reply, of the counted queries
  // The client process's own CPU time and context switches over the window
  // (client_server only: in the other modes the clients share the run's process).
  double cpu_seconds = 0;
  u64 involuntary_switches = 0, voluntary_switches = 0;
  char error[256] = {};  // the first client failure, if any
};
static_assert(std::is_trivially_copyable_v<ClientReport> && std::is_trivially_copyable_v<ClientCell>);

// Thread t's points, as the workload definition draws them (sysbench/point_stream.hpp).
inline sysbench::PointStream client_points(const ClientCell& cell, u32 t) {
  return {cell.seed, t, cell.threads, cell.table_rows, static_cast<sysbench::KeyDistribution>(cell.distribution),
          cell.points};
}

// Runs cell.threads threads until the window's end: thread t makes its
// query with make(t) (a connection is opened there, before the first query)
// and calls query(points), which returns the rows of one select_random_points
// over the next points of the thread's stream (client_points).
// The calling thread calls at_start() at the window's start and at_end() at
// its end, then joins the threads.
template <class MakeQuery, class AtStart, class AtEnd>
ClientReport run_client_threads(const ClientCell& cell, MakeQuery&& make, AtStart&& at_start, AtEnd&& at_end) {
  struct Tally {
    LatencyHistogram latency;
    u64 queries = 0, rows = 0;
    std::string error;
  };
  std::vector<Tally> tallies(cell.threads);
  std::vector<std::thread> pool;
  pool.reserve(cell.threads);
  for (u32 t = 0; t < cell.threads; ++t) {
    pool.emplace_back([&, t] {
      Tally& tally = tallies[t];
      try {
        sysbench::PointStream points = client_points(cell, t);
        auto query = make(t);
        for (;;) {
          const i64 sent = now_ns();
          if (sent >= cell.end_ns) break;
          const u64 rows = query(points.next());
          const i64 arrived = now_ns();
          if (arrived >= cell.start_ns && arrived < cell.end_ns) {
            tally.latency.add(static_cast<u64>(arrived - sent));
            ++tally.queries;
            tally.rows += rows;
          }
        }
      } catch (const std::exception& e) {
        tally.error = e.what();
      }
    });
  }
  sleep_until_ns(cell.start_ns);
  at_start();
  sleep_until_ns(cell.end_ns);
  at_end();
  for (auto& thread : pool) thread.join();
  ClientReport report;
  for (const auto& tally : tallies) {
    report.latency.merge(tally.latency);
    report.queries += tally.queries;
    report.rows += tally.rows;
    if (!tally.error.empty() && report.error[0] == '\0')
      tally.error.copy(report.error, sizeof report.error - 1);
  }
  return report;
}

// Clients over Unix-socket connections to the server at `socket_path`, in
// this process (client_server_in_process).
// at_start and at_end as run_client_threads's; measure_process: report this
// process's CPU time and context switches over the window (the client process).
ClientReport run_socket_clients(const std::string& socket_path, const ClientCell& cell, bool measure_process,
                                const std::function<void()>& at_start = {}, const std::function<void()>& at_end = {});

// The client process of client_server: forked at construction (before the
// caller starts any thread), it then runs each cell it is sent and sends its
// report back, until destroyed. It dies with its parent (PR_SET_PDEATHSIG).
class ClientProcess {
 public:
  explicit ClientProcess(std::string socket_path);
  ClientProcess(const ClientProcess&) = delete;
  ClientProcess& operator=(const ClientProcess&) = delete;

  void start(const ClientCell& cell);  // the child's threads connect and run at once
  // Blocks for the child's report of that cell; a child silent until
  // `deadline_ns` (monotonic clock) is killed, and this throws.
  ClientReport finish(i64 deadline_ns);
  pid_t pid() const { return child_.pid(); }

 private:
  proc::ChildProcess child_;  // its channel carries cells in and reports out
};

}  // namespace dbrepro::keycache_driver
