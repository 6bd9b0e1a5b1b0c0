// net::accept_loop, the accept loop of E2's and E3's thread-per-connection
// servers: every pending client is handed over, and a byte on the wake pipe
// stops it (with or without clients, before or after it has waited).
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "net/acceptor.hpp"
#include "net/socket.hpp"

using namespace dbrepro;

namespace {

struct Listener {
  std::string path;
  int fd = -1;
  int wake[2] = {-1, -1};
  Listener() {
    path = (std::filesystem::temp_directory_path() / ("net_acceptor_" + std::to_string(::getpid()) + ".sock")).string();
    fd = net::listen_unix(path, 64);
    net::set_nonblocking(fd);
    EXPECT_EQ(::pipe2(wake, O_CLOEXEC | O_NONBLOCK), 0);
  }
  ~Listener() {
    ::close(fd);
    ::close(wake[0]);
    ::close(wake[1]);
    ::unlink(path.c_str());
  }
  void wake_up() const {
    const char byte = 1;
    ASSERT_EQ(::write(wake[1], &byte, 1), 1);
  }
};

}  // namespace

TEST(NetAcceptor, HandsOverEveryClientThenStopsOnWake) {
  Listener l;
  std::vector<int> clients;
  for (int i = 0; i < 5; ++i) clients.push_back(net::connect_unix(l.path));  // pending before the loop runs
  std::atomic<int> accepted{0};
  std::thread loop([&] {
    net::accept_loop(l.fd, l.wake[0], [&](int fd) {
      // Blocking, as the servers' connection threads expect.
      EXPECT_EQ(::fcntl(fd, F_GETFL) & O_NONBLOCK, 0);
      EXPECT_NE(::fcntl(fd, F_GETFD) & FD_CLOEXEC, 0);
      ++accepted;  // before the close its client sees
      ::close(fd);
    });
  });
  for (int i = 0; i < 3; ++i) clients.push_back(net::connect_unix(l.path));  // while it waits
  for (int fd : clients) {
    char byte;
    EXPECT_EQ(::recv(fd, &byte, 1, 0), 0);  // the server side was accepted, then closed
    ::close(fd);
  }
  EXPECT_EQ(accepted.load(), 8);
  l.wake_up();
  loop.join();
}

TEST(NetAcceptor, StopsOnWakeWithNoClient) {
  Listener l;
  l.wake_up();  // already asked before it starts
  net::accept_loop(l.fd, l.wake[0], [](int fd) {
    ::close(fd);
    ADD_FAILURE() << "no client connected";
  });
  char drain;
  ASSERT_EQ(::read(l.wake[0], &drain, 1), 1);
  std::thread loop([&] { net::accept_loop(l.fd, l.wake[0], [](int fd) { ::close(fd); }); });
  l.wake_up();  // and while it waits
  loop.join();
}
