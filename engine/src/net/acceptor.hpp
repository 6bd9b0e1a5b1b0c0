#pragma once
// The one accept loop of the engine's thread-per-connection servers: E2's
// ConnectionServer (sysbench/point_server: MariaDB's one thread per
// connection) and E3's multi-threaded server (openedge/server: OpenEdge 12's
// acceptor in front of one thread per client). Each runs it on its own
// acceptor thread and decides, in `on_accept`, what a client gets: E2 a
// thread; E3 a thread, or its connection-limit ERROR when it is over -Ma's
// max_clients. E3's single-threaded server keeps its own accept inside its
// poll loop: that loop is OpenEdge 11's mechanism, the baseline measured.
//
// It stops on a wake fd (a pipe's read end; the owner writes a byte to it)
// rather than on shutdown() of the listener: E3's poll loop waits on the
// same pipe, and a pipe wakes poll() wherever shutdown() of a listening
// socket does not.
#include <functional>

namespace dbrepro::net {

// Polls `listen_fd` (which must be non-blocking: each wake-up accepts every
// pending client) and `wake_fd`; calls on_accept(fd) for each accepted
// connection (close-on-exec, blocking; on_accept owns it). EINTR and
// ECONNABORTED (a client gone before it was accepted) are retried. Returns
// once `wake_fd` is readable or on any other failure of the listener.
void accept_loop(int listen_fd, int wake_fd, const std::function<void(int fd)>& on_accept);

}  // namespace dbrepro::net
