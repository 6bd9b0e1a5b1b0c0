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

const std::array<SessionsField, 10> kSessionsFields = {{
    {"scheduler", FieldType::kText, "", "engine, os_rr, os_fair", "engine (the engine's fiber scheduler), os_rr (SCHED_RR) or os_fair",
     [](SessionsRunConfig& c, const FieldValue& v) { c.scheduler = text_of("scheduler", v); },
     [](const SessionsRunConfig& c) { return FieldValue{c.scheduler}; }},
    {"workload", FieldType::kText, "", "cpu, memory", "cpu (register-bound) or memory (full scans of a table)",
     [](SessionsRunConfig& c, const FieldValue& v) { c.sessions.workload = parse_workload(text_of("workload", v)); },
     [](const SessionsRunConfig& c) { return FieldValue{std::string(workload_name(c.sessions.workload))}; }},
    {"cpus", FieldType::kUnsigned, "", "1..CPUs", "CPUs used, 0..cpus-1; sessions spread evenly",
     [](SessionsRunConfig& c, const FieldValue& v) { c.sessions.cpus = unsigned_of<u32>("cpus", v); },
     [](const SessionsRunConfig& c) { return integer(c.sessions.cpus); }},
    {"pinned", FieldType::kBool, "", "", "each session pinned to its CPU, or free on all of the run's CPUs",
     [](SessionsRunConfig& c, const FieldValue& v) { c.sessions.pinned = bool_of("pinned", v); },
     [](const SessionsRunConfig& c) { return FieldValue{c.sessions.pinned}; }},
    {"sessions_per_cpu", FieldType::kUnsigned, "", ">= 1", "sessions per CPU",
     [](SessionsRunConfig& c, const FieldValue& v) {
       c.sessions.sessions_per_cpu = unsigned_of<u32>("sessions_per_cpu", v);
     },
     [](const SessionsRunConfig& c) { return integer(c.sessions.sessions_per_cpu); }},
    {"quantum_ms", FieldType::kFloat, "ms", "> 0", "the engine scheduler's quantum, ms (the OS one is a kernel tunable)",
     [](SessionsRunConfig& c, const FieldValue& v) { c.sessions.quantum_ms = float_of("quantum_ms", v); },
     [](const SessionsRunConfig& c) { return FieldValue{c.sessions.quantum_ms}; }},
    {"cpu_iterations", FieldType::kUnsigned, "", ">= 1", "a CPU-bound session's units of work",
     [](SessionsRunConfig& c, const FieldValue& v) { c.sessions.cpu_iterations = unsigned_of<u64>("cpu_iterations", v); },
     [](const SessionsRunConfig& c) { return integer(c.sessions.cpu_iterations); }},
    {"table_bytes", FieldType::kUnsigned, "bytes", ">= page_size", "a memory-bound session's table, bytes",
     [](SessionsRunConfig& c, const FieldValue& v) { c.sessions.table_bytes = unsigned_of<u64>("table_bytes", v); },
     [](const SessionsRunConfig& c) { return integer(c.sessions.table_bytes); }},
    {"passes", FieldType::kUnsigned, "", ">= 1", "a memory-bound session's full scans of its table",
     [](SessionsRunConfig& c, const FieldValue& v) { c.sessions.passes = unsigned_of<u32>("passes", v); },
     [](const SessionsRunConfig& c) { return integer(c.sessions.passes); }},
    {"page_size", FieldType::kUnsigned, "bytes", "", "the table's page, bytes",
     [](SessionsRunConfig& c, const FieldValue& v) { c.sessions.page_size = unsigned_of<u32>("page_size", v); },
     [](const SessionsRunConfig& c) { return integer(c.sessions.page_size); }},
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
