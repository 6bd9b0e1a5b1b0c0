#pragma once
// The engine's sockets, made one way: E3's server and clients on TCP
// (127.0.0.1, port 0 picks a free one), E2's on a same-host Unix socket.
// Every failure throws, naming the endpoint: std::invalid_argument for an
// address that does not parse, std::runtime_error for the rest.
#include <string>

#include "common/types.hpp"

namespace dbrepro::net {

// A listening TCP socket on address:port; `bound` gets the port it took.
int listen_tcp(const std::string& address, u16 port, int backlog, u16* bound);
// A connected TCP socket, TCP_NODELAY set (requests and replies are small and go one at a time).
int connect_tcp(const std::string& address, u16 port);

// A listening Unix stream socket on `path` (replaced if it exists).
int listen_unix(const std::string& path, int backlog);
// A connection to one; a full backlog (many clients at once) is retried, as a client library does.
int connect_unix(const std::string& path);

void set_nodelay(int fd);
void set_nonblocking(int fd);

}  // namespace dbrepro::net
