#include "openedge/client.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

#include "io/fd.hpp"
#include "net/socket.hpp"

namespace dbrepro::openedge {

Client::Client(const std::string& address, u16 port) {
  try {
    fd_ = net::connect_tcp(address, port);
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(std::string("client: ") + e.what());
  }
}

Client::~Client() { close(); }

void Client::close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

void Client::send_raw(const std::byte* data, size_t size) {
  if (const io::Transfer t = io::send_all(fd_, data, size); !t.whole()) throw io::io_error("client: send", t);
  counters_.bytes_sent += size;
}

Reply Client::read_reply() {
  for (;;) {
    auto decoded = decode_reply(in_.data(), in_.size());
    if (decoded.status == DecodeStatus::kOk) {
      in_.erase(in_.begin(), in_.begin() + static_cast<std::ptrdiff_t>(decoded.consumed));
      counters_.bytes_received += decoded.consumed;
      ++counters_.messages_received;
      return std::move(decoded.message);
    }
    if (decoded.status == DecodeStatus::kError) throw std::runtime_error("client: bad reply: " + decoded.reason);
    std::byte chunk[64 * 1024];
    const ssize_t n = ::recv(fd_, chunk, sizeof(chunk), 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw std::runtime_error("client: the server closed the connection");
    in_.insert(in_.end(), chunk, chunk + n);
  }
}

Reply Client::call(const Request& request) {
  if (delay_.count() > 0) {
    std::this_thread::sleep_for(delay_);
    counters_.delay_us += static_cast<u64>(delay_.count());
  }
  out_.clear();
  encode(request, out_);
  send_raw(out_.data(), out_.size());
  ++counters_.messages_sent;
  return read_reply();
}

RecordsReply Client::records(const Request& request) {
  Reply reply = call(request);
  if (auto* error = std::get_if<ErrorReply>(&reply)) throw ServerError(error->code, error->message);
  if (auto* records = std::get_if<RecordsReply>(&reply)) return std::move(*records);
  throw std::runtime_error("client: expected RECORDS, got OK");
}

namespace {

u64 tuple_hash(const std::vector<Record>& tuple) {
  u64 h = 1469598103934665603ull;
  for (const auto& r : tuple) h = (h ^ static_cast<u64>(num_key(r))) * 1099511628211ull;
  return h;
}

struct TupleCollector {
  JoinTotals totals;
  std::vector<Record> path;
  const TupleSink& sink;

  void emit() {
    ++totals.tuples;
    totals.checksum += tuple_hash(path);
    if (sink) sink(path);
  }
};

// Level `level` of the join over the network: open a cursor on its index,
// fetch its records batch by batch, descend for each one.
void client_level(Client& client, const JoinSpec& spec, u32 prefetch, u32 level, i64 lo, i64 hi, TupleCollector& out) {
  const JoinStep& step = spec.steps[level];
  const bool last = level + 1 == spec.steps.size();
  RecordsReply reply = client.records(OpenRequest{step.table, step.column, lo, hi, prefetch});
  for (;;) {
    out.totals.records_received += reply.entries.size();
    for (const auto& entry : reply.entries) {
      out.path[level] = entry.record;
      if (last) {
        out.emit();
        continue;
      }
      const JoinStep& inner = spec.steps[level + 1];
      const i64 value = value_of(entry.record, static_cast<Column>(inner.parent_column));
      client_level(client, spec, prefetch, level + 1, value, value + 1, out);
    }
    if (reply.end) return;
    reply = client.records(NextRequest{reply.cursor, prefetch});
  }
}

}  // namespace

JoinTotals join_client_side(Client& client, const JoinSpec& spec, u32 prefetch, const TupleSink& sink) {
  TupleCollector out{{}, std::vector<Record>(spec.steps.size()), sink};
  if (!spec.steps.empty()) client_level(client, spec, prefetch, 0, spec.lo, spec.hi, out);
  return out.totals;
}

JoinTotals join_server_side(Client& client, const JoinSpec& spec, u32 prefetch, const TupleSink& sink) {
  TupleCollector out{{}, std::vector<Record>(spec.steps.size()), sink};
  const size_t last = spec.steps.size() - 1;
  RecordsReply reply = client.records(JoinRequest{spec, prefetch});
  for (;;) {
    out.totals.records_received += reply.entries.size();
    for (const auto& entry : reply.entries) {
      if (entry.level > last) throw std::runtime_error("client: join entry of level " + std::to_string(entry.level));
      out.path[entry.level] = entry.record;
      if (entry.level == last) out.emit();
    }
    if (reply.end) return out.totals;
    reply = client.records(NextRequest{reply.cursor, prefetch});
  }
}

}  // namespace dbrepro::openedge
