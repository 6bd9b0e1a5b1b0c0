#pragma once
// What one TPC-C run is asked to do. Validated once, before anything is
// loaded; every field has a name the Python API and both CLIs use verbatim.
#include <array>
#include <string>

#include "common/types.hpp"
#include "tpcc/txn_types.hpp"

namespace dbrepro::tpcc {

// stack: which engine runs the transactions, a name from driver/tpcc/stack_registry.hpp
//   (bare; step0..step10, E1's removal ladder; optimal, E1's kernel; disk, E5's).
// meter: "none", or "perf" for per-phase hardware counters (perf_event).
struct RunConfig {
  u32 warehouses = 1;
  u64 transactions = 40000;    // stop after this many (0: run for `seconds` only)
  // Run before the measured phase by one terminal, then every counter starts
  // from zero: a measurement of the steady state (E5: the pool full, as in
  // the article's benchmark) rather than of the cold start.
  u64 warmup_transactions = 0;
  double seconds = 0.0;        // stop after this long (0: no time limit)
  std::array<double, kTxnTypeCount> mix{0.5, 0.5, 0.0, 0.0, 0.0};  // weights per TxnType
  Variant variant = Variant::kPaper;
  u64 seed = 1;
  std::string stack = "bare";
  u32 page_size = 0;                  // 0: the stack's default (8 KB; 32 KB from step 8 on)
  std::string key_compare = "auto";   // "auto" (the stack's), "generic" or "integer" (bare only)
  std::string meter = "none";         // "none" or "perf"
  std::string log_dir;                // where a flushing log writes its file ("": $TMPDIR or /tmp)
  u64 progress_every = 1000;            // transactions between progress callbacks
  bool check_consistency = true;
  // Concurrency: terminals (OS threads) running transactions at once; more
  // than 1 needs a stack with locking, latching and the main log (step0-step2).
  u32 terminals = 1;
  // E5, stack "disk": the database in a file, a pool of a fraction of it.
  std::string cache_policy = "lru";   // a name from cache::Policies (cache/policies.hpp)
  double pool_fraction = 0.1;         // pool frames / database pages at the start of the run
  std::string data_dir;               // where the database file goes ("": $TMPDIR or /tmp)
  bool o_direct = true;               // read and write the file with O_DIRECT where allowed
  std::string trace_path;             // record the page reference string here (single thread)
  std::string trace_format = "txt";   // "txt" (one id per line) or "oracle_general"
};

// Throws std::invalid_argument naming the parameter and its allowed values.
void validate(const RunConfig& config);

// The pieces of validate() that the durable commands share
// (driver/tpcc/durable_run.hpp), whose runs have limits of their own
// (terminals, transactions 0: until killed).
inline constexpr u32 kMaxWarehouses = 65535;
inline constexpr u32 kMaxTerminals = 1024;     // a run's; a durable run's stamps allow more
void check_warehouses(u32 warehouses);           // 1..kMaxWarehouses
void check_seconds_and_mix(const RunConfig& config);

// About what one loaded warehouse occupies in memory (rows and indexes; the
// README's "about 100 MB each").
inline constexpr u64 kWarehouseBytes = u64{100} << 20;
// Refuses (invalid_argument naming warehouses) a scale whose in-memory
// database would not fit in this machine's physical memory.
void check_fits_in_memory(u32 warehouses);

// The configuration with "auto" and 0 replaced by what the stack uses.
RunConfig resolve(const RunConfig& config);

const char* variant_name(Variant v);
Variant parse_variant(const std::string& name);      // throws std::invalid_argument
TxnType parse_txn_type(const std::string& name);     // throws std::invalid_argument

}  // namespace dbrepro::tpcc
