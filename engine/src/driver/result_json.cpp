#include "driver/result_json.hpp"

#include <cmath>
#include <cstdio>
#include <cstring>

#include "common/json_writer.hpp"

namespace dbrepro {

std::string to_json(const tpcc::RunResult& r) {
  using namespace tpcc;
  JsonWriter w;
  w.begin_object();
  w.key("config").begin_object();
  w.field("warehouses", r.config.warehouses)
      .field("transactions", r.config.transactions)
      .field("warmup_transactions", r.config.warmup_transactions)
      .field("seconds", r.config.seconds);
  w.key("mix").begin_object();
  for (int i = 0; i < kTxnTypeCount; ++i) w.field(kTxnTypeNames[i], r.config.mix[i]);
  w.end_object();
  w.field("variant", variant_name(r.config.variant))
      .field("seed", r.config.seed)
      .field("stack", r.config.stack)
      .field("page_size", r.config.page_size)
      .field("key_compare", r.config.key_compare)
      .field("meter", r.config.meter)
      .field("log_dir", r.config.log_dir)
      .field("progress_every", r.config.progress_every)
      .field("check_consistency", r.config.check_consistency)
      .field("cache_policy", r.config.cache_policy)
      .field("pool_fraction", r.config.pool_fraction)
      .field("data_dir", r.config.data_dir)
      .field("o_direct", r.config.o_direct)
      .field("trace_path", r.config.trace_path)
      .field("trace_format", r.config.trace_format)
      .field("terminals", r.config.terminals);
  w.end_object();
  w.field("step", r.step).field("stack_label", r.stack_label);
  w.key("components").begin_object();
  for (const auto& [component, form] : r.components) w.field(component.c_str(), form);
  w.end_object();
  w.field("transactions", r.transactions)
      .field("elapsed_seconds", r.elapsed_seconds)
      .field("cpu_seconds", r.cpu_seconds)
      .field("load_seconds", r.load_seconds)
      .field("throughput_tps", r.throughput())
      .field("database_pages", r.database_pages)
      .field("database_bytes", r.database_bytes)
      .field("interrupted", r.interrupted)
      .field("log_bytes_written", r.log_bytes_written)
      .field("log_syncs", r.log_syncs);
  if (!r.pool.policy.empty()) {  // E5 disk stack
    w.key("pool").begin_object();
    w.field("policy", r.pool.policy)
        .field("fraction", r.pool.fraction())
        .field("frames", r.pool.frames)
        .field("database_pages", r.pool.database_pages)
        .field("hits", r.pool.hits)
        .field("misses", r.pool.misses)
        .field("reads", r.pool.reads)
        .field("writes", r.pool.writes)
        .field("cold_writes", r.pool.cold_writes)
        .field("hit_locks", r.pool.hit_locks)
        .field("hit_lock_waits", r.pool.hit_lock_waits)
        .field("hit_lock_wait_ns", r.pool.hit_lock_wait_ns)
        .field("ghost_hits", r.pool.ghost_hits)
        .field("hit_ratio", r.pool.hit_ratio())
        .field("o_direct", r.pool.o_direct)
        .field("warmup_references", r.pool.warmup_references)
        .field("warmup_misses", r.pool.warmup_misses);
    w.end_object();
  }
  w.key("counters").begin_object();
  w.field("meter", r.counters.meter)
      .field("perf_error", r.counters.perf_error)
      .field("read_cost_instructions", r.counters.read_cost_instructions)
      .field("read_cost_cycles", r.counters.read_cost_cycles);
  w.end_object();
  w.key("phases").begin_object();
  for (int p = 0; p < kPhaseCount; ++p) {
    w.key(kPhaseNames[p]).begin_object();
    w.field("instructions", r.phases[p].instructions)
        .field("cycles", r.phases[p].cycles)
        .field("calls", r.phases[p].calls);
    w.end_object();
  }
  w.end_object();
  w.key("per_type").begin_object();
  for (int i = 0; i < kTxnTypeCount; ++i) {
    const TxnStats& s = r.per_type[i];
    w.key(kTxnTypeNames[i]).begin_object();
    w.field("commits", s.commits)
        .field("aborts", s.aborts)
        .field("retries", s.retries)
        .field("seconds", s.seconds)
        .field("instructions", s.instructions)
        .field("cycles", s.cycles);
    w.end_object();
  }
  w.end_object();
  w.key("consistency").begin_array();
  for (const ConsistencyCheck& c : r.consistency) {
    w.begin_object();
    w.field("condition", c.condition)
        .field("description", c.description)
        .field("passed", c.passed)
        .field("detail", c.detail);
    w.end_object();
  }
  w.end_array();
  // null when the run did not check: "not checked" is not "consistent".
  w.key("consistent");
  if (r.config.check_consistency) w.value(r.consistent()); else w.null();
  w.end_object();
  return std::move(w).str();
}

std::string to_json(const BuildInfo& info) {
  JsonWriter w;
  w.begin_object();
  w.field("compiler", info.compiler)
      .field("cxx_flags", info.cxx_flags)
      .field("build_type", info.build_type)
      .field("cxx_standard", info.cxx_standard)
      .field("version", info.version);
  w.end_object();
  return std::move(w).str();
}

}  // namespace dbrepro
