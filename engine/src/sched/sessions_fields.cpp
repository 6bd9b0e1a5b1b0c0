#include "sched/sessions_fields.hpp"

#include <array>
#include <stdexcept>

#include "sched/run_sessions.hpp"

namespace dbrepro::sched {

namespace {

using config::bool_of;
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

const std::array<SessionsField, 14> kSessionsFields = {{
    {"scheduler", FieldType::kText, "engine (the engine's fiber scheduler), os_rr (SCHED_RR) or os_fair",
     [](SessionsRunConfig& c, const FieldValue& v) { c.scheduler = text_of("scheduler", v); },
     [](const SessionsRunConfig& c) { return FieldValue{c.scheduler}; }},
    {"workload", FieldType::kText, "cpu (register-bound) or memory (full scans of a table)",
     [](SessionsRunConfig& c, const FieldValue& v) { c.sessions.workload = parse_workload(text_of("workload", v)); },
     [](const SessionsRunConfig& c) { return FieldValue{std::string(workload_name(c.sessions.workload))}; }},
    {"cpus", FieldType::kUnsigned, "CPUs used, 0..cpus-1; sessions spread evenly",
     [](SessionsRunConfig& c, const FieldValue& v) { c.sessions.cpus = unsigned_of<u32>("cpus", v); },
     [](const SessionsRunConfig& c) { return integer(c.sessions.cpus); }},
    {"pinned", FieldType::kBool, "each session pinned to its CPU, or free on all of the run's CPUs",
     [](SessionsRunConfig& c, const FieldValue& v) { c.sessions.pinned = bool_of("pinned", v); },
     [](const SessionsRunConfig& c) { return FieldValue{c.sessions.pinned}; }},
    {"sessions_per_cpu", FieldType::kUnsigned, "sessions per CPU",
     [](SessionsRunConfig& c, const FieldValue& v) {
       c.sessions.sessions_per_cpu = unsigned_of<u32>("sessions_per_cpu", v);
     },
     [](const SessionsRunConfig& c) { return integer(c.sessions.sessions_per_cpu); }},
    {"quantum_ms", FieldType::kFloat, "the engine scheduler's quantum, ms (the OS one is a kernel tunable)",
     [](SessionsRunConfig& c, const FieldValue& v) { c.sessions.quantum_ms = float_of("quantum_ms", v); },
     [](const SessionsRunConfig& c) { return FieldValue{c.sessions.quantum_ms}; }},
    {"cpu_iterations", FieldType::kUnsigned, "a CPU-bound session's units of work",
     [](SessionsRunConfig& c, const FieldValue& v) { c.sessions.cpu_iterations = unsigned_of<u64>("cpu_iterations", v); },
     [](const SessionsRunConfig& c) { return integer(c.sessions.cpu_iterations); }},
    {"table_bytes", FieldType::kUnsigned, "the table every memory-bound session scans, bytes",
     [](SessionsRunConfig& c, const FieldValue& v) { c.sessions.table_bytes = unsigned_of<u64>("table_bytes", v); },
     [](const SessionsRunConfig& c) { return integer(c.sessions.table_bytes); }},
    {"passes", FieldType::kUnsigned, "a memory-bound session's full scans of the table",
     [](SessionsRunConfig& c, const FieldValue& v) { c.sessions.passes = unsigned_of<u32>("passes", v); },
     [](const SessionsRunConfig& c) { return integer(c.sessions.passes); }},
    {"page_size", FieldType::kUnsigned, "the table's page, bytes",
     [](SessionsRunConfig& c, const FieldValue& v) { c.sessions.page_size = unsigned_of<u32>("page_size", v); },
     [](const SessionsRunConfig& c) { return integer(c.sessions.page_size); }},
    {"latch", FieldType::kText, "the buffer cache's chain latches: spin_nap (spins, then sleeps), adaptive or futex",
     [](SessionsRunConfig& c, const FieldValue& v) { c.sessions.latch = parse_latch(text_of("latch", v)); },
     [](const SessionsRunConfig& c) { return FieldValue{std::string(latch_name(c.sessions.latch))}; }},
    {"latch_spin", FieldType::kUnsigned, "spin_nap latch: tries before it sleeps (Oracle's _spin_count)",
     [](SessionsRunConfig& c, const FieldValue& v) { c.sessions.latch_spin = unsigned_of<u32>("latch_spin", v); },
     [](const SessionsRunConfig& c) { return integer(c.sessions.latch_spin); }},
    {"cache_over_table", FieldType::kFloat, "the buffer cache's size over the table's (the article's 180 MB / 46 MB)",
     [](SessionsRunConfig& c, const FieldValue& v) { c.sessions.cache_over_table = float_of("cache_over_table", v); },
     [](const SessionsRunConfig& c) { return FieldValue{c.sessions.cache_over_table}; }},
    {"latches", FieldType::kUnsigned, "the buffer cache's chain latches (Oracle's _db_block_hash_latches)",
     [](SessionsRunConfig& c, const FieldValue& v) { c.sessions.latches = unsigned_of<u32>("latches", v); },
     [](const SessionsRunConfig& c) { return integer(c.sessions.latches); }},
}};

}  // namespace

std::span<const SessionsField> sessions_fields() { return kSessionsFields; }

void validate(const SessionsRunConfig& config) {
  if (config.scheduler != "engine" && config.scheduler != "os_rr" && config.scheduler != "os_fair")
    throw std::invalid_argument("scheduler: invalid choice '" + config.scheduler +
                                "' (allowed: engine, os_rr, os_fair)");
  validate(config.sessions);
}

}  // namespace dbrepro::sched
