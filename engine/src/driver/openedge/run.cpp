#include "driver/openedge/run.hpp"

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>
#include <latch>
#include <memory>
#include <stdexcept>
#include <thread>

#include "io/fd.hpp"
#include "proc/child_process.hpp"

namespace dbrepro::openedge {
namespace {

double cpu_seconds(int who) {
  rusage usage{};
  getrusage(who, &usage);
  auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec / 1e6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

double since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// What one user did in a step.
struct UserResult {
  JoinTotals totals;
  WireCounters wire;
  double seconds = 0;
};
struct UsersRun {
  std::vector<UserResult> users;
  double wall_seconds = 0;  // from the release of every user to the last one's end
  double cpu_seconds = 0;   // CPU time of this process and of the client processes over that span
};

// One user's passes over its share of Table1 on its connection.
UserResult run_user(Client& client, const LadderConfig& config, const LadderStep& s, u32 u) {
  const i64 rows = static_cast<i64>(config.database.rows);
  JoinSpec spec = article_join(rows * u / config.users, rows * (u + 1) / config.users);
  if (config.workload == LadderConfig::Workload::kScan) spec.steps.resize(1);  // FOR EACH Table1 in the range
  UserResult r;
  const auto start = std::chrono::steady_clock::now();
  for (u32 p = 0; p < config.passes; ++p) {
    const JoinTotals t = s.server_side_join ? join_server_side(client, spec, config.prefetch)
                                            : join_client_side(client, spec, config.prefetch);
    r.totals.tuples += t.tuples;
    r.totals.checksum += t.checksum;
    r.totals.records_received += t.records_received;
  }
  r.seconds = since(start);
  r.wire = client.counters();
  return r;
}

std::unique_ptr<Client> connect_user(const LadderConfig& config, const std::vector<u16>& ports, u32 u) {
  auto client = std::make_unique<Client>(config.address, ports[u % ports.size()]);
  client->set_message_delay(std::chrono::microseconds(config.message_delay_us));
  return client;
}

// Users as threads of this process.
UsersRun run_users_in_threads(const LadderConfig& config, const LadderStep& s, const std::vector<u16>& ports) {
  // Users connect before the clock starts: the timed work is the joins.
  std::vector<std::unique_ptr<Client>> clients;
  for (u32 u = 0; u < config.users; ++u) clients.push_back(connect_user(config, ports, u));
  UsersRun out;
  out.users.resize(config.users);
  std::vector<std::exception_ptr> failures(config.users);
  std::latch go(1);
  std::vector<std::thread> threads;
  for (u32 u = 0; u < config.users; ++u) {
    threads.emplace_back([&, u] {
      go.wait();
      try {
        out.users[u] = run_user(*clients[u], config, s, u);
      } catch (...) {
        failures[u] = std::current_exception();
      }
    });
  }
  const double cpu_before = cpu_seconds(RUSAGE_SELF);
  const auto start = std::chrono::steady_clock::now();
  go.count_down();
  for (auto& t : threads) t.join();
  out.wall_seconds = since(start);
  out.cpu_seconds = cpu_seconds(RUSAGE_SELF) - cpu_before;
  for (const auto& f : failures)
    if (f) std::rethrow_exception(f);
  return out;
}

// What a client process sends back through its channel.
struct ChildReport {
  UserResult result;
  char error[240];  // empty if the user's work succeeded
};

bool read_all(int fd, void* data, size_t size) { return io::read_full(fd, data, size).whole(); }
void write_all(int fd, const void* data, size_t size) { io::send_all(fd, data, size); }

// Users as client processes of their own, as the article's clients were:
// each is forked, connects, says it is ready and waits for the start; the
// parent releases them all at once and reads each one's report.
UsersRun run_users_in_processes(const LadderConfig& config, const LadderStep& s, const std::vector<u16>& ports) {
  std::vector<proc::ChildProcess> children;
  children.reserve(config.users);
  for (u32 u = 0; u < config.users; ++u) {
    children.emplace_back("ladder: client process " + std::to_string(u), [&, u](int channel) {
      for (u32 v = 0; v < u; ++v) children[v].close_channel();  // keeps only its own channel
      ChildReport r{};
      bool ready = false;
      try {
        auto client = connect_user(config, ports, u);
        write_all(channel, "r", 1);  // ready
        ready = true;
        char start = 0;
        if (read_all(channel, &start, 1))
          r.result = run_user(*client, config, s, u);
        else
          std::snprintf(r.error, sizeof(r.error), "the ladder went away before the start");
      } catch (const std::exception& e) {
        std::snprintf(r.error, sizeof(r.error), "%s", e.what());
      }
      if (!ready) write_all(channel, "e", 1);  // failed before it was ready: the report follows
      write_all(channel, &r, sizeof(r));
      return r.error[0] ? 1 : 0;
    });
  }
  // Every user connected (or failed to): then the clock starts and all are released.
  std::string failure;
  for (u32 u = 0; u < config.users && failure.empty(); ++u) {
    char ready = 0;
    if (!read_all(children[u].channel(), &ready, 1)) {
      failure = "client process " + std::to_string(u) + " died";
    } else if (ready != 'r') {
      ChildReport r{};
      failure = read_all(children[u].channel(), &r, sizeof(r)) ? r.error : "client process " + std::to_string(u) + " died";
    }
  }
  UsersRun out;
  out.users.resize(config.users);
  const double cpu_before = cpu_seconds(RUSAGE_SELF) + cpu_seconds(RUSAGE_CHILDREN);
  const auto start = std::chrono::steady_clock::now();
  if (failure.empty()) {
    for (const proc::ChildProcess& c : children) {
      const char go = 'g';
      write_all(c.channel(), &go, 1);
    }
    for (u32 u = 0; u < config.users; ++u) {
      ChildReport r{};
      if (!read_all(children[u].channel(), &r, sizeof(r))) {
        if (failure.empty()) failure = "client process " + std::to_string(u) + " died";
      } else if (r.error[0]) {
        if (failure.empty()) failure = r.error;
      } else {
        out.users[u] = r.result;
      }
    }
  }
  out.wall_seconds = since(start);
  children.clear();  // reaped: the children's CPU time counts once they are waited for
  out.cpu_seconds = cpu_seconds(RUSAGE_SELF) + cpu_seconds(RUSAGE_CHILDREN) - cpu_before;
  if (!failure.empty()) throw std::runtime_error("ladder: a user failed: " + failure);
  return out;
}

}  // namespace

void validate(const LadderConfig& config) {
  validate(config.database);
  auto check = [](const char* name, u64 value, u64 lo, u64 hi) {
    if (value < lo || value > hi)
      throw std::invalid_argument(std::string(name) + ": must be in " + std::to_string(lo) + ".." +
                                  std::to_string(hi) + ", got " + std::to_string(value));
  };
  check("servers", config.servers, 1, 64);
  check("users", config.users, 1, 1024);
  check("passes", config.passes, 1, 1000000);
  check("prefetch", config.prefetch, 1, kMaxPrefetch);
  check("max_clients", config.max_clients, 1, 1024);
  check("fixed_latches", config.fixed_latches, 1, 1u << 20);
  check("latch_factor", config.latch_factor, 5, 100);
  check("bucket_percent", config.bucket_percent, 1, 1000);
  check("repeats", config.repeats, 1, 1000);
  check("spin", config.spin_nap.spin, 0, 10000000);
  check("message_delay_us", config.message_delay_us, 0, 1000000);
  validate(config.spin_nap);
  if (config.users < config.servers)
    throw std::invalid_argument("users: must be at least servers (" + std::to_string(config.servers) + "), got " +
                                std::to_string(config.users));
  if (config.users > u64{config.servers} * config.max_clients)
    throw std::invalid_argument("users: " + std::to_string(config.servers) + " servers of max_clients " +
                                std::to_string(config.max_clients) + " (-Ma) take at most " +
                                std::to_string(config.servers * config.max_clients) + ", got " +
                                std::to_string(config.users));
  if (config.users > config.database.rows)
    throw std::invalid_argument("users: each needs at least one row of Table1 (rows " +
                                std::to_string(config.database.rows) + "), got " + std::to_string(config.users));
  if (config.steps.empty()) throw std::invalid_argument("steps: must name at least one ladder step");
  for (u32 s : config.steps) check("steps", s, 0, kLadderSteps.size() - 1);
}

StepRun run_step(const Database& db, const LadderConfig& config, u32 step, u32 repeat) {
  const LadderStep& s = kLadderSteps.at(step);
  BufferPoolConfig pool_config;
  pool_config.bucket_percent = config.bucket_percent;
  pool_config.latches = s.latch_factor ? LatchSizing::factor(config.latch_factor) : LatchSizing::fixed(config.fixed_latches);
  BufferPool pool(db, pool_config);

  std::vector<std::unique_ptr<Server>> servers;
  for (u32 m = 0; m < config.servers; ++m) {
    ServerConfig sc;
    sc.address = config.address;
    sc.mode = s.mode;
    sc.max_connections = config.max_clients;
    sc.optimistic = s.optimistic;
    servers.push_back(std::make_unique<Server>(db, pool, sc));
    servers.back()->start();
  }
  std::vector<u16> ports;
  for (const auto& server : servers) ports.push_back(server->port());
  const UsersRun users = config.client_processes ? run_users_in_processes(config, s, ports)
                                                 : run_users_in_threads(config, s, ports);
  StepRun run;
  run.step = step;
  run.repeat = repeat;
  run.wall_seconds = users.wall_seconds;
  run.cpu_seconds = users.cpu_seconds;
  for (const UserResult& u : users.users) {
    run.user_seconds.push_back(u.seconds);
    run.tuples += u.totals.tuples;
    run.checksum += u.totals.checksum;
    run.records_received += u.totals.records_received;
    run.wire += u.wire;
  }
  for (auto& server : servers) {
    server->stop();  // every session has ended: its counters are in the stats
    run.access += server->stats().access;
  }
  run.cache = pool.stats();
  run.naps = pool.naps();
  run.latches = pool.latch_count();
  run.buckets = pool.bucket_count();
  run.frames = pool.frame_count();
  return run;
}

LadderResult run_ladder(const LadderConfig& config, const LadderTick& tick) {
  validate(config);
  spin_nap_params() = config.spin_nap;  // process-wide, as OpenEdge's broker parameters
  const Database db = build_database(config.database);
  LadderResult result;
  for (u32 t = 0; t < kTables; ++t) result.table_rows[t] = db.tables[t].rows;
  result.pages = db.page_count;
  const u32 total = config.repeats * static_cast<u32>(config.steps.size());
  for (u32 r = 0; r < config.repeats; ++r) {
    for (u32 step : config.steps) {
      if (tick && !tick(static_cast<u32>(result.runs.size()), total)) {
        result.interrupted = true;
        return result;
      }
      result.runs.push_back(run_step(db, config, step, r + 1));
    }
  }
  if (tick) tick(total, total);
  return result;
}

}  // namespace dbrepro::openedge
