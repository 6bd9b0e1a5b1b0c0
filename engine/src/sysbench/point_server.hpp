#pragma once
// E2's server: MariaDB's one-thread-per-connection scheduler (the default
// thread_handling, sql/sql_connect.cc's handle_one_connection) in front of the
// key cache. An acceptor thread (net::accept_loop) accepts each client on a
// Unix socket and starts one server thread for it; that thread reads a
// request, runs select_random_points against the key cache and the data file
// (the storage engine's work: index blocks copied out of the key cache, rows
// pread from sbtest.MYD), sends every row back, and blocks reading the next
// request.
// Client and server threads share the cores, so every query is a sleep and a
// wake-up on each side, and a wake-up can preempt a server thread while it
// holds a segment mutex: the lock-holder preemption that segments relieve.
//
// ConnectionServer is the sockets and threads; serve_points is one
// connection's loop; PointServer puts them together for a key cache (the one a
// new connection uses is chosen by serve_with: E2 interleaves its segment
// settings on one server, a fresh cache for each run, as MariaDB's
// SET GLOBAL key_cache_segments repartitions and empties its one cache).
#include <atomic>
#include <condition_variable>
#include <cstring>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/random.hpp"
#include "net/frame.hpp"
#include "sysbench/point_protocol.hpp"
#include "sysbench/select_random_points.hpp"

namespace dbrepro::sysbench {

// One connection's counts, kept by its own thread (no shared counter on the
// query path) and added to the server's when it closes.
struct ConnectionCounters {
  u64 requests = 0;  // whole frames read
  u64 replies = 0;   // 'R' replies sent
  u64 refused = 0;   // 'E' replies sent
  u64 rows = 0;      // rows sent
};

struct ServerStats {
  u64 connections = 0;     // accepted, each with its own thread
  u64 active = 0;          // open now
  u64 peak_active = 0;
  ConnectionCounters closed;  // summed over the connections that have closed
};

class ConnectionServer {
 public:
  using Handler = std::function<void(int fd, ConnectionCounters&)>;

  // Listens on `path` and starts accepting; handler(fd, counters) runs on the
  // connection's own thread until it returns (the server then closes fd).
  ConnectionServer(std::string path, Handler handler, int backlog = 1024);
  ~ConnectionServer();
  ConnectionServer(const ConnectionServer&) = delete;
  ConnectionServer& operator=(const ConnectionServer&) = delete;

  const std::string& path() const { return path_; }
  ServerStats stats() const;
  // The thread that served each accepted connection, in accept order.
  std::vector<std::thread::id> connection_threads() const;
  std::thread::id acceptor_thread() const { return acceptor_.get_id(); }
  void wait_idle() const;  // until every accepted connection has closed
  void stop();             // closes the listener and every connection, joins every thread

 private:
  struct Connection {
    int fd = -1;
    bool done = false;
    std::thread thread;
  };
  void on_accept(int fd);  // net::accept_loop's handler: the connection's thread
  void reap_locked();

  std::string path_;
  Handler handler_;
  int listen_fd_ = -1;
  int wake_[2] = {-1, -1};  // a pipe: stop() writes, the acceptor wakes
  std::atomic<bool> stopping_{false};
  mutable std::mutex mutex_;
  mutable std::condition_variable idle_;
  std::list<Connection> connections_;
  std::vector<std::thread::id> served_by_;
  ServerStats stats_;
  std::thread acceptor_;
};

// One connection's requests against `select` until the client closes (or
// sends a frame too long to skip). The rows are sent as the storage engine
// hands them to the server: each sbtest row's 188 bytes.
template <class Cache>
void serve_points(int fd, PointSelect<Cache>& select, const SbtestTable& table, ConnectionCounters& counts) {
  std::vector<std::byte> body, reply;
  PointRequest request;
  std::vector<u32> drawn;
  for (;;) {
    u32 length = 0;
    if (!read_full(fd, &length, sizeof length)) return;
    if (length > kMaxRequestBody) {
      ++counts.refused;
      const auto frame = error_frame("request of " + std::to_string(length) + " bytes exceeds the " +
                                     std::to_string(kMaxRequestBody) + "-byte limit; closing the connection");
      write_full(fd, frame.data(), frame.size());
      return;
    }
    body.resize(length);
    if (length > 0 && !read_full(fd, body.data(), length)) return;
    ++counts.requests;
    if (const std::string refused = parse_request(body.data(), length, request); !refused.empty()) {
      ++counts.refused;
      const auto frame = error_frame(refused);
      write_full(fd, frame.data(), frame.size());
      continue;
    }
    const std::vector<u32>* points = &request.points;
    if (request.kind == RequestKind::kSeed) {
      Random rng(request.seed);
      drawn.resize(request.count);
      for (auto& p : drawn) p = draw_key(rng, table.meta().distribution, table.meta().rows);
      points = &drawn;
    }
    reply.clear();
    const size_t frame = net::begin_frame(reply);
    reply.resize(frame + net::kFrameHeader + kReplyHeader);
    const PointsResult result = select.select_points(*points, [&](const SbtestRow& row) {
      const size_t at = reply.size();
      reply.resize(at + sizeof row);
      std::memcpy(reply.data() + at, &row, sizeof row);
    });
    net::end_frame(reply, frame);
    reply[4] = std::byte{'R'};
    std::memcpy(reply.data() + 5, &result.rows, 8);
    std::memcpy(reply.data() + 13, &result.checksum, 8);
    write_full(fd, reply.data(), reply.size());
    ++counts.replies;
    counts.rows += result.rows;
  }
}

// The server of one sbtest table: a new connection queries the cache set by
// the latest serve_with (each connection keeps the cache it started with; a
// cache is replaced only when no connection is open: wait_idle).
template <class Cache>
class PointServer {
 public:
  PointServer(const SbtestTable& table, Cache* cache, const std::string& path)
      : table_(table), cache_(cache), server_(path, [this](int fd, ConnectionCounters& counts) { serve(fd, counts); }) {}

  void serve_with(Cache* cache) { cache_.store(cache); }
  ConnectionServer& connections() { return server_; }
  const std::string& path() const { return server_.path(); }

 private:
  void serve(int fd, ConnectionCounters& counts) {
    Cache* cache = cache_.load();
    if (cache == nullptr) {
      // The refusal is the reply to the client's first request, read first:
      // closing before the client has sent it would make its send fail
      // (EPIPE) instead of showing it the reason.
      u32 length = 0;
      if (!read_full(fd, &length, sizeof length)) return;
      if (length <= kMaxRequestBody) {
        std::vector<std::byte> body(length);
        if (length > 0 && !read_full(fd, body.data(), length)) return;
      }
      ++counts.refused;
      const auto frame = error_frame("no key cache is being served; closing the connection");
      write_full(fd, frame.data(), frame.size());
      return;
    }
    PointSelect<Cache> select(table_, *cache);
    serve_points(fd, select, table_, counts);
  }

  const SbtestTable& table_;
  std::atomic<Cache*> cache_;
  ConnectionServer server_;  // last: its threads use the members above
};

}  // namespace dbrepro::sysbench
