#pragma once
// E3's ladder: the same remote work (U users running the 7-table join over
// their share of Table1, spread over M servers) under four configurations,
// each adding one of OpenEdge 12's features to the previous one:
//   0 baseline  fixed latch count, lookup index access, single-threaded servers, client-side join
//   1 bht       + latch factor and optimistic index access
//   2 mtdbs     + multi-threaded servers
//   3 ssj       + server-side join
// Steps run interleaved (0 1 2 3, 0 1 2 3, ...) against one database; each
// step gets a fresh buffer pool, servers and connections.
#include <array>
#include <functional>
#include <string>
#include <vector>

#include "openedge/client.hpp"
#include "openedge/server.hpp"

namespace dbrepro::openedge {

struct LadderStep {
  const char* name;
  const char* label;
  bool latch_factor;  // else a fixed latch count
  bool optimistic;
  ServerMode mode;
  bool server_side_join;
};

inline constexpr std::array<LadderStep, 4> kLadderSteps{{
    {"baseline", "fixed latches, single-threaded servers, client-side join", false, false,
     ServerMode::kSingleThreaded, false},
    {"bht", "+ latch factor and optimistic index access", true, true, ServerMode::kSingleThreaded, false},
    {"mtdbs", "+ multi-threaded servers", true, true, ServerMode::kMultiThreaded, false},
    {"ssj", "+ server-side join", true, true, ServerMode::kMultiThreaded, true},
}};

struct LadderConfig {
  DatabaseConfig database = [] {  // Table1 of 2,000 rows: a ladder of seconds
    DatabaseConfig d;
    d.rows = 2000;
    return d;
  }();
  u32 servers = 1;          // M
  u32 users = 20;           // U, user u on server u mod M
  u32 max_clients = 20;     // clients a server takes (-Ma; the article's 20: 150 users on 8 servers)
  u32 passes = 1;           // times each user runs its join
  u32 prefetch = 100;       // records per message (-prefetchNumRecs)
  u32 fixed_latches = 1024; // the baseline's latch count (OpenEdge 11.7's, see latch_sizing.hpp)
  u32 latch_factor = 100;   // % of the hash buckets, from step 1 on (-hashLatchFactor; the article's 100)
  u32 bucket_percent = 25; // hash buckets as % of the buffer frames (-hash)
  SpinNapParams spin_nap;  // the BHT latches' -spin, -nap, -napmax (every step)
  u32 message_delay_us = 0;  // latency added to every client request (0: loopback as it is)
  bool client_processes = true;  // users in client processes of their own (the article's), else threads
  // What each user runs over its share of Table1: the 7-table join, or only
  // its first level, an index scan of Table1 that stays in one index block
  // for up to a block's worth of records (where optimistic access saves most).
  enum class Workload : u8 { kJoin, kScan } workload = Workload::kJoin;
  u32 repeats = 1;
  std::vector<u32> steps{0, 1, 2, 3};
  std::string address = "127.0.0.1";
};

struct StepRun {
  u32 step = 0;
  u32 repeat = 0;
  double wall_seconds = 0;  // from the release of every user to the last one's end
  double cpu_seconds = 0;   // CPU time over the same span: this process (the servers) and the clients
  std::vector<double> user_seconds;
  u64 tuples = 0;
  u64 checksum = 0;
  u64 records_received = 0;  // records the clients received
  WireCounters wire;         // summed over the users
  AccessCounters access;     // summed over the servers' sessions
  CacheStats cache;          // the buffer pool's, from the end of its warm-up
  u64 naps = 0;              // naps taken on the BHT latches
  u32 latches = 0, buckets = 0, frames = 0;
};

struct LadderResult {
  std::array<u64, kTables> table_rows{};
  u64 pages = 0;
  std::vector<StepRun> runs;  // in the order they ran
  bool interrupted = false;
};

// Called between runs with (runs done, runs in all); false stops the ladder.
using LadderTick = std::function<bool(u32 done, u32 total)>;

void validate(const LadderConfig& config);
StepRun run_step(const Database& db, const LadderConfig& config, u32 step, u32 repeat);
LadderResult run_ladder(const LadderConfig& config, const LadderTick& tick = {});

}  // namespace dbrepro::openedge
