#include "net/socket.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace dbrepro::net {

namespace {

sockaddr_in tcp_address(const std::string& address, u16 port) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  if (inet_pton(AF_INET, address.c_str(), &addr.sin_addr) != 1)
    throw std::invalid_argument("address: not an IPv4 address: '" + address + "'");
  return addr;
}

sockaddr_un unix_address(const std::string& path) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (path.empty() || path.size() >= sizeof address.sun_path)
    throw std::runtime_error("socket path '" + path + "': empty or longer than " +
                             std::to_string(sizeof address.sun_path - 1) + " bytes");
  std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
  return address;
}

int new_socket(int domain) {
  const int fd = ::socket(domain, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw std::runtime_error(std::string("socket: ") + std::strerror(errno));
  return fd;
}

// bind + listen, or close and throw "cannot listen on WHERE: why".
template <class Address>
void bind_listen(int fd, const Address& address, int backlog, const std::string& where) {
  if (::bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0 || ::listen(fd, backlog) != 0) {
    const int error = errno;
    ::close(fd);
    throw std::runtime_error("cannot listen on " + where + ": " + std::strerror(error));
  }
}

}  // namespace

int listen_tcp(const std::string& address, u16 port, int backlog, u16* bound) {
  sockaddr_in addr = tcp_address(address, port);
  const int fd = new_socket(AF_INET);
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  bind_listen(fd, addr, backlog, address + ":" + std::to_string(port));
  socklen_t len = sizeof(addr);
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  if (bound) *bound = ntohs(addr.sin_port);
  return fd;
}

int connect_tcp(const std::string& address, u16 port) {
  const sockaddr_in addr = tcp_address(address, port);
  const int fd = new_socket(AF_INET);
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof(addr)) != 0) {
    const int error = errno;
    ::close(fd);
    throw std::runtime_error("cannot connect to " + address + ":" + std::to_string(port) + ": " +
                             std::strerror(error));
  }
  set_nodelay(fd);
  return fd;
}

int listen_unix(const std::string& path, int backlog) {
  const sockaddr_un address = unix_address(path);
  const int fd = new_socket(AF_UNIX);
  ::unlink(path.c_str());
  bind_listen(fd, address, backlog, path);
  return fd;
}

int connect_unix(const std::string& path) {
  const sockaddr_un address = unix_address(path);
  const int fd = new_socket(AF_UNIX);
  for (int attempt = 0;; ++attempt) {
    if (::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0) return fd;
    if ((errno == EAGAIN || errno == EINTR) && attempt < 1000) {
      ::usleep(1000);
      continue;
    }
    const int error = errno;
    ::close(fd);
    throw std::runtime_error("cannot connect to " + path + ": " + std::strerror(error));
  }
}

void set_nodelay(int fd) {
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

void set_nonblocking(int fd) { fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK); }

}  // namespace dbrepro::net
