#include "net/acceptor.hpp"

#include <poll.h>
#include <sys/socket.h>

#include <cerrno>

namespace dbrepro::net {

void accept_loop(int listen_fd, int wake_fd, const std::function<void(int fd)>& on_accept) {
  pollfd fds[2] = {{wake_fd, POLLIN, 0}, {listen_fd, POLLIN, 0}};
  for (;;) {
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (fds[0].revents != 0) return;  // asked to stop
    if (fds[1].revents & (POLLERR | POLLNVAL)) return;  // the listener is gone
    for (;;) {
      const int fd = ::accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd >= 0) {
        on_accept(fd);
        continue;
      }
      if (errno == EINTR || errno == ECONNABORTED) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) break;  // none pending: back to poll
      return;  // the listener is gone
    }
  }
}

}  // namespace dbrepro::net
