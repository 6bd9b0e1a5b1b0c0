#include "openedge/server.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "io/fd.hpp"
#include "net/acceptor.hpp"
#include "net/socket.hpp"

namespace dbrepro::openedge {
namespace {

constexpr size_t kReadChunk = 64 * 1024;

std::string errno_text() { return std::strerror(errno); }

// Sends all of `out` on a blocking socket; false if the peer is gone.
bool send_all(int fd, const std::vector<std::byte>& out) { return io::send_all(fd, out.data(), out.size()).whole(); }

}  // namespace

struct Server::Connection {
  int fd;
  std::unique_ptr<Session> session;
  std::vector<std::byte> in, out;
  bool closing = false;  // close once `out` is sent
};

Server::Server(const Database& db, BufferPool& pool, ServerConfig config)
    : db_(db), pool_(pool), config_(std::move(config)) {
  if (config_.max_connections < 1) throw std::invalid_argument("max_connections: must be >= 1, got 0");
  try {
    listen_fd_ = net::listen_tcp(config_.address, config_.port, 256, &port_);
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(std::string("server: ") + e.what());
  }
  net::set_nonblocking(listen_fd_);
  if (::pipe2(wake_, O_CLOEXEC | O_NONBLOCK) != 0) {
    ::close(listen_fd_);
    throw std::runtime_error("server: pipe: " + errno_text());
  }
}

Server::~Server() {
  stop();
  ::close(listen_fd_);
  ::close(wake_[0]);
  ::close(wake_[1]);
}

void Server::start() {
  if (main_thread_.joinable()) return;
  stopping_ = false;
  if (config_.mode == ServerMode::kSingleThreaded)
    main_thread_ = std::thread([this] { single_threaded_loop(); });
  else
    main_thread_ = std::thread([this] { acceptor_loop(); });
}

void Server::stop() {
  if (!main_thread_.joinable()) return;
  stopping_ = true;
  const char byte = 1;
  [[maybe_unused]] const ssize_t n = ::write(wake_[1], &byte, 1);
  main_thread_.join();
  std::vector<std::thread> threads;
  {
    std::lock_guard guard(mutex_);
    for (int fd : client_fds_) ::shutdown(fd, SHUT_RDWR);  // their threads see EOF and end
    threads.swap(client_threads_);
  }
  for (auto& t : threads) t.join();
  char drain[16];
  while (::read(wake_[0], drain, sizeof(drain)) > 0) {
  }
}

ServerStats Server::stats() const {
  ServerStats s;
  s.connections_accepted = accepted_;
  s.connections_refused = refused_;
  s.requests = requests_;
  s.errors = errors_;
  s.open_cursors = open_cursors_;
  s.active_connections = active_;
  s.peak_pending_output = peak_output_;
  std::lock_guard guard(mutex_);
  s.access = ended_access_;
  return s;
}

void Server::session_ended(const Session& session) {
  std::lock_guard guard(mutex_);
  ended_access_ += session.counters();
}

void Server::refuse(int fd) {
  std::vector<std::byte> out;
  encode_error(ErrorCode::kConnectionLimit,
               "connection limit reached: this server takes at most " + std::to_string(config_.max_connections) +
                   " clients",
               out);
  ++refused_;  // counted first: the client may read the error before this thread goes on
  send_all(fd, out);
  ::close(fd);
}

bool Server::serve_input(Session& session, std::vector<std::byte>& in, std::vector<std::byte>& out) {
  size_t at = 0;
  bool keep = true;
  while (keep && out.size() < config_.max_pending_output) {  // the rest waits until the client reads
    auto decoded = decode_request(in.data() + at, in.size() - at, config_.max_body);
    if (decoded.status == DecodeStatus::kNeedMore) break;
    ++requests_;
    if (decoded.status == DecodeStatus::kOk) {
      session.handle(decoded.message, out);
    } else {
      ++errors_;
      encode_error(decoded.error, decoded.reason, out);
      keep = decoded.consumed != 0;  // an oversized frame cannot be skipped
    }
    at += decoded.consumed;
  }
  in.erase(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(at));
  u64 peak = peak_output_.load(std::memory_order_relaxed);
  while (out.size() > peak && !peak_output_.compare_exchange_weak(peak, out.size())) {
  }
  return keep;
}

void Server::single_threaded_loop() {
  std::vector<std::unique_ptr<Connection>> connections;
  std::vector<pollfd> fds;
  std::vector<std::byte> chunk(kReadChunk);
  auto drop = [&](size_t i) {
    session_ended(*connections[i]->session);
    ::close(connections[i]->fd);
    connections.erase(connections.begin() + static_cast<std::ptrdiff_t>(i));
    --active_;
  };
  while (!stopping_) {
    fds.clear();
    fds.push_back({wake_[0], POLLIN, 0});
    fds.push_back({listen_fd_, POLLIN, 0});
    for (const auto& c : connections) {
      short events = c->out.empty() ? 0 : POLLOUT;
      if (!c->closing && c->out.size() < config_.max_pending_output) events |= POLLIN;
      fds.push_back({c->fd, events, 0});
    }
    if (::poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (fds[0].revents != 0) break;
    if (fds[1].revents & POLLIN) {
      for (;;) {
        const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
        if (fd < 0) break;
        if (connections.size() >= config_.max_connections) {
          refuse(fd);
          continue;
        }
        net::set_nodelay(fd);
        net::set_nonblocking(fd);
        connections.push_back(std::make_unique<Connection>(
            Connection{fd, std::make_unique<Session>(db_, pool_, config_.optimistic, open_cursors_), {}, {}, false}));
        ++accepted_;
        ++active_;
      }
    }
    // Clients accepted just now are not in `fds` yet: they are polled next round.
    const size_t polled = fds.size() - 2;
    for (size_t i = polled; i-- > 0;) {
      Connection& c = *connections[i];
      const short revents = fds[i + 2].revents;
      bool gone = false;
      if (revents & (POLLIN | POLLHUP | POLLERR)) {
        const ssize_t n = ::recv(c.fd, chunk.data(), chunk.size(), 0);
        if (n > 0) {
          c.in.insert(c.in.end(), chunk.begin(), chunk.begin() + n);
          if (!serve_input(*c.session, c.in, c.out)) c.closing = true;
        } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
          gone = true;  // disconnected, perhaps mid-request: its session and cursors go with it
        }
      }
      while (!gone && !c.out.empty()) {
        const ssize_t n = ::send(c.fd, c.out.data(), c.out.size(), MSG_NOSIGNAL);
        if (n > 0) {
          c.out.erase(c.out.begin(), c.out.begin() + n);
        } else {
          gone = n < 0 && errno != EAGAIN && errno != EINTR;
          break;
        }
      }
      // Requests left unparsed at the cap: served as the replies drain.
      if (!gone && !c.closing && !c.in.empty() && c.out.size() < config_.max_pending_output &&
          !serve_input(*c.session, c.in, c.out))
        c.closing = true;
      if (gone || (c.closing && c.out.empty())) drop(i);
    }
  }
  while (!connections.empty()) drop(connections.size() - 1);
}

void Server::acceptor_loop() {
  net::accept_loop(listen_fd_, wake_[0], [this](int fd) {
    if (active_ >= static_cast<i64>(config_.max_connections)) {
      refuse(fd);
      return;
    }
    net::set_nodelay(fd);
    ++accepted_;
    ++active_;
    std::lock_guard guard(mutex_);
    client_fds_.push_back(fd);
    client_threads_.emplace_back([this, fd] { client_thread(fd); });
  });
}

void Server::client_thread(int fd) {
  {
    Session session(db_, pool_, config_.optimistic, open_cursors_);
    std::vector<std::byte> in, out, chunk(kReadChunk);
    for (;;) {
      const ssize_t n = ::recv(fd, chunk.data(), chunk.size(), 0);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;  // disconnected, perhaps mid-request (or stop() shut the socket down)
      in.insert(in.end(), chunk.begin(), chunk.begin() + n);
      bool keep = true;
      do {  // at most max_pending_output of replies at a time, sent before parsing on
        out.clear();
        keep = serve_input(session, in, out);  // false: close once this reply (an ERROR) is sent
        if (!send_all(fd, out)) keep = false;
      } while (keep && out.size() >= config_.max_pending_output);
      if (!keep) break;
    }
    session_ended(session);
  }  // the session and its cursors are gone before the connection stops counting
  {
    std::lock_guard guard(mutex_);
    client_fds_.erase(std::find(client_fds_.begin(), client_fds_.end(), fd));
    ::close(fd);
  }
  --active_;
}

}  // namespace dbrepro::openedge
