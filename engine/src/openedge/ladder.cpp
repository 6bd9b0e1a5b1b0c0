#include "openedge/ladder.hpp"

#include <sys/resource.h>

#include <chrono>
#include <exception>
#include <latch>
#include <memory>
#include <stdexcept>
#include <thread>

namespace dbrepro::openedge {
namespace {

double process_cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec / 1e6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

double since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
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
  check("fixed_latches", config.fixed_latches, 1, 1u << 20);
  check("latch_factor", config.latch_factor, 1, 100);
  check("bucket_percent", config.bucket_percent, 1, 1000);
  check("repeats", config.repeats, 1, 1000);
  if (config.users < config.servers)
    throw std::invalid_argument("users: must be at least servers (" + std::to_string(config.servers) + "), got " +
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
    sc.max_connections = config.users;
    sc.optimistic = s.optimistic;
    servers.push_back(std::make_unique<Server>(db, pool, sc));
    servers.back()->start();
  }
  // Users connect before the clock starts: the timed work is the joins.
  std::vector<std::unique_ptr<Client>> clients;
  for (u32 u = 0; u < config.users; ++u)
    clients.push_back(std::make_unique<Client>(config.address, servers[u % config.servers]->port()));

  StepRun run;
  run.step = step;
  run.repeat = repeat;
  run.user_seconds.assign(config.users, 0.0);
  std::vector<JoinTotals> totals(config.users);
  std::vector<std::exception_ptr> failures(config.users);
  std::latch go(1);
  std::vector<std::thread> users;
  const i64 rows = static_cast<i64>(config.database.rows);
  for (u32 u = 0; u < config.users; ++u) {
    users.emplace_back([&, u] {
      const JoinSpec spec = article_join(rows * u / config.users, rows * (u + 1) / config.users);
      go.wait();
      const auto start = std::chrono::steady_clock::now();
      try {
        for (u32 p = 0; p < config.passes; ++p) {
          const JoinTotals t = s.server_side_join ? join_server_side(*clients[u], spec, config.prefetch)
                                                  : join_client_side(*clients[u], spec, config.prefetch);
          totals[u].tuples += t.tuples;
          totals[u].checksum += t.checksum;
          totals[u].records_received += t.records_received;
        }
      } catch (...) {
        failures[u] = std::current_exception();
      }
      run.user_seconds[u] = since(start);
    });
  }
  const double cpu_before = process_cpu_seconds();
  const auto start = std::chrono::steady_clock::now();
  go.count_down();
  for (auto& t : users) t.join();
  run.wall_seconds = since(start);
  run.cpu_seconds = process_cpu_seconds() - cpu_before;
  for (const auto& f : failures)
    if (f) std::rethrow_exception(f);

  for (u32 u = 0; u < config.users; ++u) {
    run.tuples += totals[u].tuples;
    run.checksum += totals[u].checksum;
    run.records_received += totals[u].records_received;
    run.wire += clients[u]->counters();
  }
  clients.clear();
  for (auto& server : servers) {
    server->stop();  // every session has ended: its counters are in the stats
    run.access += server->stats().access;
  }
  run.latches = pool.latch_count();
  run.buckets = pool.bucket_count();
  run.frames = pool.frame_count();
  return run;
}

LadderResult run_ladder(const LadderConfig& config, const LadderTick& tick) {
  validate(config);
  const Database db = build_database(config.database);
  LadderResult result;
  for (u32 t = 0; t < kTables; ++t) result.table_rows[t] = db.tables[t].rows;
  result.pages = db.pages.size();
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
