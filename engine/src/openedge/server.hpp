#pragma once
// E3's database server on TCP (127.0.0.1 by default; port 0 picks a free one).
//   single-threaded  one thread runs a poll() loop over the listening socket
//                    and every client: accepts, serves one request at a time,
//                    handles disconnects (OpenEdge 11's server process);
//   multi-threaded   an acceptor thread (net::accept_loop) and one thread per
//                    client (12's MTDBS).
// Both answer malformed frames with an ERROR and keep serving; an oversized
// frame gets an ERROR and the connection is closed (its stream cannot be
// re-synchronised); a client beyond max_connections gets an ERROR and is
// closed. A closed connection's session, with its cursors, is destroyed.
#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "openedge/session.hpp"

namespace dbrepro::openedge {

enum class ServerMode : u8 { kSingleThreaded, kMultiThreaded };

struct ServerConfig {
  std::string address = "127.0.0.1";
  u16 port = 0;
  ServerMode mode = ServerMode::kSingleThreaded;
  u32 max_connections = 64;
  bool optimistic = false;  // the sessions' cursors re-validate remembered index blocks
  u32 max_body = kMaxBody;
  // Replies queued for one client before the server stops parsing its
  // requests (and reading more of them) until the client reads: one client
  // that pipelines requests and never reads holds at most this plus one reply.
  u64 max_pending_output = u64{4} << 20;
};

struct ServerStats {
  u64 connections_accepted = 0;
  u64 connections_refused = 0;
  u64 requests = 0;
  u64 errors = 0;  // ERROR replies to bad frames
  i64 open_cursors = 0;
  i64 active_connections = 0;
  u64 peak_pending_output = 0;  // the most reply bytes one connection had queued
  AccessCounters access;  // of the sessions that have ended
};

class Server {
 public:
  // Binds and listens (throws std::runtime_error naming the address on failure); serving starts at start().
  Server(const Database& db, BufferPool& pool, ServerConfig config);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  void start();
  void stop();  // closes every connection and joins the server's threads
  u16 port() const { return port_; }
  const ServerConfig& config() const { return config_; }
  ServerStats stats() const;

 private:
  struct Connection;
  void single_threaded_loop();
  void acceptor_loop();
  void client_thread(int fd);
  // Feeds a connection's complete requests to its session until `out` holds
  // max_pending_output; false when it must be closed once `out` is sent.
  bool serve_input(Session& session, std::vector<std::byte>& in, std::vector<std::byte>& out);
  void refuse(int fd);
  void session_ended(const Session& session);

  const Database& db_;
  BufferPool& pool_;
  ServerConfig config_;
  int listen_fd_ = -1;
  int wake_[2] = {-1, -1};  // a pipe: stop() writes, the poll loops wake
  u16 port_ = 0;
  std::atomic<bool> stopping_{false};
  std::thread main_thread_;

  std::atomic<i64> open_cursors_{0};
  std::atomic<i64> active_{0};
  std::atomic<u64> accepted_{0}, refused_{0}, requests_{0}, errors_{0}, peak_output_{0};
  mutable std::mutex mutex_;  // ended sessions' counters; the multi-threaded mode's client threads and fds
  AccessCounters ended_access_;
  std::vector<std::thread> client_threads_;
  std::vector<int> client_fds_;
};

}  // namespace dbrepro::openedge
