#include "sysbench/point_server.hpp"

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <stdexcept>

#include "net/acceptor.hpp"
#include "net/socket.hpp"

namespace dbrepro::sysbench {

ConnectionServer::ConnectionServer(std::string path, Handler handler, int backlog)
    : path_(std::move(path)), handler_(std::move(handler)), listen_fd_(net::listen_unix(path_, backlog)) {
  net::set_nonblocking(listen_fd_);  // net::accept_loop drains the backlog on each wake-up
  if (::pipe2(wake_, O_CLOEXEC | O_NONBLOCK) != 0) {
    const std::string why = std::strerror(errno);
    ::close(listen_fd_);
    ::unlink(path_.c_str());
    throw std::runtime_error("point server: pipe: " + why);
  }
  acceptor_ = std::thread([this] { net::accept_loop(listen_fd_, wake_[0], [this](int fd) { on_accept(fd); }); });
}

ConnectionServer::~ConnectionServer() { stop(); }

void ConnectionServer::on_accept(int fd) {
  if (stopping_.load()) {  // accepted as stop() began: not served
    ::close(fd);
    return;
  }
  std::lock_guard lock(mutex_);
  reap_locked();
  ++stats_.connections;
  ++stats_.active;
  if (stats_.active > stats_.peak_active) stats_.peak_active = stats_.active;
  Connection& c = connections_.emplace_back();
  c.fd = fd;
  c.thread = std::thread([this, &c] {
    ConnectionCounters counts;
    try {
      handler_(c.fd, counts);
    } catch (const std::exception& e) {
      // A client that went away mid-frame, or a failed send: this connection ends, the server goes on.
      if (!stopping_.load()) std::fprintf(stderr, "point server: connection ended: %s\n", e.what());
    }
    std::lock_guard hold(mutex_);
    ::close(c.fd);
    c.fd = -1;
    c.done = true;
    stats_.closed.requests += counts.requests;
    stats_.closed.replies += counts.replies;
    stats_.closed.refused += counts.refused;
    stats_.closed.rows += counts.rows;
    --stats_.active;
    idle_.notify_all();
  });
  served_by_.push_back(c.thread.get_id());
}

void ConnectionServer::reap_locked() {
  for (auto it = connections_.begin(); it != connections_.end();) {
    if (it->done) {
      it->thread.join();  // it has finished: only its return is left
      it = connections_.erase(it);
    } else {
      ++it;
    }
  }
}

ServerStats ConnectionServer::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

std::vector<std::thread::id> ConnectionServer::connection_threads() const {
  std::lock_guard lock(mutex_);
  return served_by_;
}

void ConnectionServer::wait_idle() const {
  std::unique_lock lock(mutex_);
  idle_.wait(lock, [&] { return stats_.active == 0; });
}

void ConnectionServer::stop() {
  if (stopping_.exchange(true)) return;
  const char byte = 1;
  [[maybe_unused]] const ssize_t n = ::write(wake_[1], &byte, 1);  // wakes net::accept_loop
  if (acceptor_.joinable()) acceptor_.join();
  ::close(listen_fd_);
  ::close(wake_[0]);
  ::close(wake_[1]);
  ::unlink(path_.c_str());
  std::list<Connection> left;
  {
    std::lock_guard lock(mutex_);
    for (auto& c : connections_)
      if (!c.done && c.fd >= 0) ::shutdown(c.fd, SHUT_RDWR);  // wakes its recv()
    left.splice(left.end(), connections_);
  }
  for (auto& c : left) c.thread.join();
}

}  // namespace dbrepro::sysbench
