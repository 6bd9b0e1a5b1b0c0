#pragma once
// The client library: one TCP connection to a server, request/reply calls
// that count the bytes and messages on the wire, and the two ways to run a
// join: client-side (nested opens and nexts, the client keeping only whole
// tuples) or server-side (one JOIN; the server streams qualifying tuples).
#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "openedge/protocol.hpp"

namespace dbrepro::openedge {

struct WireCounters {
  u64 bytes_sent = 0, bytes_received = 0;
  u64 messages_sent = 0, messages_received = 0;
  u64 delay_us = 0;  // latency added on the client-server path (set_message_delay)

  WireCounters& operator+=(const WireCounters& o) {
    delay_us += o.delay_us;
    bytes_sent += o.bytes_sent;
    bytes_received += o.bytes_received;
    messages_sent += o.messages_sent;
    messages_received += o.messages_received;
    return *this;
  }
};

// An ERROR reply from the server.
struct ServerError : std::runtime_error {
  ErrorCode code;
  ServerError(ErrorCode c, const std::string& message) : std::runtime_error(message), code(c) {}
};

class Client {
 public:
  Client(const std::string& address, u16 port);  // connects; throws std::runtime_error
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  Reply call(const Request& request);                // one request, its reply
  RecordsReply records(const Request& request);      // throws ServerError on an ERROR reply
  void send_raw(const std::byte* data, size_t size);  // for tests: any bytes
  Reply read_reply();                                 // throws std::runtime_error if the server closed
  void close();
  // Added latency: every request waits `delay` before it goes out (a slower
  // network between client and server, one delay per round trip).
  void set_message_delay(std::chrono::microseconds delay) { delay_ = delay; }

  const WireCounters& counters() const { return counters_; }

 private:
  int fd_ = -1;
  std::vector<std::byte> out_, in_;
  WireCounters counters_;
  std::chrono::microseconds delay_{0};
};

// One qualifying tuple: the records of every level, in join order.
using TupleSink = std::function<void(const std::vector<Record>& tuple)>;

struct JoinTotals {
  u64 tuples = 0;
  u64 checksum = 0;          // order-independent hash of every tuple's keys
  u64 records_received = 0;  // records that crossed the wire to the client
};

JoinTotals join_client_side(Client& client, const JoinSpec& spec, u32 prefetch, const TupleSink& sink = {});
JoinTotals join_server_side(Client& client, const JoinSpec& spec, u32 prefetch, const TupleSink& sink = {});

}  // namespace dbrepro::openedge
