#include "driver/quantum/fields.hpp"

#include <array>
#include <stdexcept>
#include <string>

#include "driver/quantum/run.hpp"
#include "sched/ts_table.hpp"

namespace dbrepro::sched {

namespace {

using config::FieldType;
using config::FieldValue;
using config::float_of;
using config::integer;
using config::text_of;
using config::unsigned_of;

WorkloadKind parse_workload(const std::string& name) {
  if (name == "cpu") return WorkloadKind::kCpu;
  if (name == "memory") return WorkloadKind::kMemory;
  throw std::invalid_argument("workload: invalid choice '" + name + "' (allowed: cpu, memory)");
}

const char* workload_name(WorkloadKind kind) { return kind == WorkloadKind::kMemory ? "memory" : "cpu"; }

LatchKind parse_latch(const std::string& name) {
  if (name == "spin_nap") return LatchKind::kSpinNap;
  if (name == "adaptive") return LatchKind::kAdaptive;
  if (name == "futex") return LatchKind::kFutex;
  throw std::invalid_argument("latch: invalid choice '" + name + "' (allowed: spin_nap, adaptive, futex)");
}

const char* latch_name(LatchKind kind) {
  switch (kind) {
    case LatchKind::kAdaptive:
      return "adaptive";
    case LatchKind::kFutex:
      return "futex";
    case LatchKind::kSpinNap:
      break;
  }
  return "spin_nap";
}

// Named as the profile, the command line, the record and the tables name them:
// the placement (pinned/unpinned) sets SessionsConfig::pinned, the table's
// size is in MiB (the article's 46 MB), and cpus 0 is every CPU this process
// may run on.
constexpr double kMiB = 1 << 20;

const std::array<SessionsField, 20> kSessionsFields = {{
    {"scheduler", FieldType::kText, "", "engine, os_rr, os_fair, os_fair_q, os_ts",
     "engine (the engine's fiber scheduler), os_rr (SCHED_RR), os_fair (SCHED_OTHER), os_fair_q "
     "(SCHED_OTHER with the fair scheduler's base slice set to Q by the caller, dbrepro.quantum) or os_ts "
     "(Solaris's time-sharing class emulated: the default ts_dptbl with Q in every level, or another reading "
     "(ts_reading), sessions SCHED_FIFO at their level's priority, a dispatcher thread above them; "
     "engine/src/sched/ts_linux.hpp)",
     [](SessionsRunConfig& c, const FieldValue& v) { c.scheduler = text_of("scheduler", v); },
     [](const SessionsRunConfig& c) { return FieldValue{c.scheduler}; }},
    {"workload", FieldType::kText, "", "cpu, memory",
     "cpu (register-bound) or memory (full scans of one shared table through a latched buffer cache)",
     [](SessionsRunConfig& c, const FieldValue& v) { c.sessions.workload = parse_workload(text_of("workload", v)); },
     [](const SessionsRunConfig& c) { return FieldValue{std::string(workload_name(c.sessions.workload))}; }},
    {"cpus", FieldType::kUnsigned, "", "0..CPUs",
     "CPUs used, the first of this process's (0: all of them; CPUs: how many it may run on); sessions spread evenly",
     [](SessionsRunConfig& c, const FieldValue& v) {
       const u32 n = unsigned_of<u32>("cpus", v);
       const u32 cpus = available_cpus();
       // The same range as the row states, with this machine's CPUs named.
       if (n > cpus)
         throw std::invalid_argument("cpus: must be in 0..CPUs (0: all of them; this process may run on " +
                                     std::to_string(cpus) + "), got " + std::to_string(n));
       c.sessions.cpus = n == 0 ? cpus : n;
     },
     [](const SessionsRunConfig& c) { return integer(c.sessions.cpus); }},
    {"placement", FieldType::kText, "", "pinned, unpinned",
     "pinned: each session (engine: its worker) on its own CPU; unpinned: free on all of the run's CPUs",
     [](SessionsRunConfig& c, const FieldValue& v) {
       const std::string& name = text_of("placement", v);
       if (name != "pinned" && name != "unpinned")
         throw std::invalid_argument("placement: invalid choice '" + name + "' (allowed: pinned, unpinned)");
       c.sessions.pinned = name == "pinned";
     },
     [](const SessionsRunConfig& c) { return FieldValue{std::string(c.sessions.pinned ? "pinned" : "unpinned")}; }},
    {"sessions_per_cpu", FieldType::kUnsigned, "", ">= 1", "sessions per CPU",
     [](SessionsRunConfig& c, const FieldValue& v) {
       c.sessions.sessions_per_cpu = unsigned_of<u32>("sessions_per_cpu", v);
     },
     [](const SessionsRunConfig& c) { return integer(c.sessions.sessions_per_cpu); }},
    {"quantum_ms", FieldType::kFloat, "ms", "> 0",
     "the quantum Q (the engine scheduler's; the OS one is a kernel tunable the caller sets; os_ts: every "
     "level's ts_quantum, before ts_time_scale)",
     [](SessionsRunConfig& c, const FieldValue& v) { c.sessions.quantum_ms = float_of("quantum_ms", v); },
     [](const SessionsRunConfig& c) { return FieldValue{c.sessions.quantum_ms}; }},
    {"cpu_iterations", FieldType::kUnsigned, "", ">= 1", "a CPU-bound session's units of work",
     [](SessionsRunConfig& c, const FieldValue& v) { c.sessions.cpu_iterations = unsigned_of<u64>("cpu_iterations", v); },
     [](const SessionsRunConfig& c) { return integer(c.sessions.cpu_iterations); }},
    {"table_mb", FieldType::kFloat, "MiB", "> 0, at least a page", "the table every memory-bound session scans",
     [](SessionsRunConfig& c, const FieldValue& v) {
       const double mb = float_of("table_mb", v);
       if (!(mb > 0) || mb * kMiB > 1e15) throw std::invalid_argument("table_mb: must be > 0 (and below 1e9)");
       c.sessions.table_bytes = static_cast<u64>(mb * kMiB);
     },
     [](const SessionsRunConfig& c) { return FieldValue{static_cast<double>(c.sessions.table_bytes) / kMiB}; }},
    {"passes", FieldType::kUnsigned, "", ">= 1", "a memory-bound session's full scans of the table",
     [](SessionsRunConfig& c, const FieldValue& v) { c.sessions.passes = unsigned_of<u32>("passes", v); },
     [](const SessionsRunConfig& c) { return integer(c.sessions.passes); }},
    {"page_size", FieldType::kUnsigned, "bytes", "a power of two in 512..65536", "the table's page",
     [](SessionsRunConfig& c, const FieldValue& v) { c.sessions.page_size = unsigned_of<u32>("page_size", v); },
     [](const SessionsRunConfig& c) { return integer(c.sessions.page_size); }},
    {"latch", FieldType::kText, "", "spin_nap, adaptive, futex",
     "the buffer cache's chain latches: spin_nap (spins, then sleeps), adaptive or futex",
     [](SessionsRunConfig& c, const FieldValue& v) { c.sessions.latch = parse_latch(text_of("latch", v)); },
     [](const SessionsRunConfig& c) { return FieldValue{std::string(latch_name(c.sessions.latch))}; }},
    {"latch_spin", FieldType::kUnsigned, "", ">= 0", "spin_nap latch: tries before it sleeps (Oracle's _spin_count)",
     [](SessionsRunConfig& c, const FieldValue& v) { c.sessions.latch_spin = unsigned_of<u32>("latch_spin", v); },
     [](const SessionsRunConfig& c) { return integer(c.sessions.latch_spin); }},
    {"cache_over_table", FieldType::kFloat, "", ">= 1",
     "the buffer cache's size over the table's (the article's 180 MB / 46 MB)",
     [](SessionsRunConfig& c, const FieldValue& v) { c.sessions.cache_over_table = float_of("cache_over_table", v); },
     [](const SessionsRunConfig& c) { return FieldValue{c.sessions.cache_over_table}; }},
    {"latches", FieldType::kUnsigned, "", ">= 1", "the buffer cache's chain latches (Oracle's _db_block_hash_latches)",
     [](SessionsRunConfig& c, const FieldValue& v) { c.sessions.latches = unsigned_of<u32>("latches", v); },
     [](const SessionsRunConfig& c) { return integer(c.sessions.latches); }},
    {"ts_time_scale", FieldType::kFloat, "", "(0, 1]",
     "os_ts: every dispatcher time (each level's quantum, the one-second update, the 10 ms clock tick) times "
     "this factor (1: Solaris's own times)",
     [](SessionsRunConfig& c, const FieldValue& v) {
       const double scale = float_of("ts_time_scale", v);
       if (!(scale > 0) || scale > 1) throw std::invalid_argument("ts_time_scale: must be > 0 and <= 1");
       c.ts.time_scale = scale;
     },
     [](const SessionsRunConfig& c) { return FieldValue{c.ts.time_scale}; }},
    {"time_limit_s", FieldType::kFloat, "s", "> 0",
     "os_ts: past this the dispatcher gives every session back to SCHED_OTHER and the run is marked timed out "
     "(real-time sessions never hold the machine longer)",
     [](SessionsRunConfig& c, const FieldValue& v) {
       const double limit = float_of("time_limit_s", v);
       if (!(limit > 0)) throw std::invalid_argument("time_limit_s: must be > 0");
       c.ts.time_limit_s = limit;
     },
     [](const SessionsRunConfig& c) { return FieldValue{c.ts.time_limit_s}; }},
    {"ts_reading", FieldType::kText, "", "all, low, fx, rt",
     "os_ts: the reading of the article's 'the quantum was set to Q' (issue 55; engine/src/sched/ts_table.hpp's "
     "kTsReadings): all (Q in every level of the default ts_dptbl), low (Q in levels 0-9 only), fx or rt (the FX or "
     "RT class at one priority with quantum Q: round robin)",
     [](SessionsRunConfig& c, const FieldValue& v) {
       c.ts.reading = std::string(ts_reading(text_of("ts_reading", v)).name);
     },
     [](const SessionsRunConfig& c) { return FieldValue{c.ts.reading}; }},
    {"ts_entry_level", FieldType::kUnsigned, "", "0..59",
     "os_ts: the level every session starts at (29: a thread entering the class; 58: a server process woken by its "
     "statement, as the article's)",
     [](SessionsRunConfig& c, const FieldValue& v) {
       const u32 level = unsigned_of<u32>("ts_entry_level", v);
       if (level >= kTsLevels) throw std::invalid_argument("ts_entry_level: must be in 0..59");
       c.ts.entry_level = level;
     },
     [](const SessionsRunConfig& c) { return integer(c.ts.entry_level); }},
    {"ts_update_phase", FieldType::kFloat, "", "0..1",
     "os_ts: when the first once-a-second update falls after the dispatcher's start, in update periods (0: drawn at "
     "random for each run, recorded; 1: one whole period)",
     [](SessionsRunConfig& c, const FieldValue& v) {
       const double phase = float_of("ts_update_phase", v);
       if (!(phase >= 0 && phase <= 1)) throw std::invalid_argument("ts_update_phase: must be in 0..1");
       c.ts.update_phase = phase;
     },
     [](const SessionsRunConfig& c) { return FieldValue{c.ts.update_phase}; }},
    {"start_gap_ms", FieldType::kFloat, "ms", ">= 0",
     "os_ts: session k starts k times this after the first (the article's ms, before ts_time_scale; 0: all at once)",
     [](SessionsRunConfig& c, const FieldValue& v) {
       const double gap = float_of("start_gap_ms", v);
       if (!(gap >= 0) || gap > 1e7) throw std::invalid_argument("start_gap_ms: must be >= 0 (and below 1e7)");
       c.ts.start_gap_ms = gap;
     },
     [](const SessionsRunConfig& c) { return FieldValue{c.ts.start_gap_ms}; }},
}};

}  // namespace

std::span<const SessionsField> sessions_fields() { return kSessionsFields; }

void validate(const SessionsRunConfig& config) {
  if (config.scheduler != "engine" && config.scheduler != "os_rr" && config.scheduler != "os_fair" &&
      config.scheduler != "os_fair_q" && config.scheduler != "os_ts")
    throw std::invalid_argument("scheduler: invalid choice '" + config.scheduler +
                                "' (allowed: engine, os_rr, os_fair, os_fair_q, os_ts)");
  validate(config.sessions);
  if (config.scheduler == "os_ts")
    (void)ts_times(ts_reading(config.ts.reading), config.sessions.quantum_ms, config.ts.time_scale);
}

}  // namespace dbrepro::sched
