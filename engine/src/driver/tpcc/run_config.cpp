#include "driver/tpcc/run_config.hpp"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "cache/policies.hpp"
#include "cache/trace_file.hpp"
#include "common/number_text.hpp"
#include "common/page_size.hpp"
#include "driver/tpcc/stack_registry.hpp"
#include "stack/ladder.hpp"

namespace dbrepro::tpcc {

const char* variant_name(Variant v) { return v == Variant::kPaper ? "paper" : "spec"; }

Variant parse_variant(const std::string& name) {
  if (name == "paper") return Variant::kPaper;
  if (name == "spec") return Variant::kSpec;
  throw std::invalid_argument("variant: invalid value '" + name + "' (allowed: paper, spec)");
}

TxnType parse_txn_type(const std::string& name) {
  for (int i = 0; i < kTxnTypeCount; ++i)
    if (name == kTxnTypeNames[i]) return static_cast<TxnType>(i);
  throw std::invalid_argument("mix: unknown transaction type '" + name +
                              "' (allowed: new_order, payment, order_status, delivery, stock_level)");
}

namespace {
const char* step_key_compare(int step) { return step == 0 ? "generic" : "integer"; }

// E5's options: only the disk stack takes them (their defaults pass anywhere).
void validate_disk(const RunConfig& c) {
  cache::with_policy(c.cache_policy, [](auto) { return 0; });  // throws naming the allowed policies
  if (!(c.pool_fraction > 0 && c.pool_fraction <= 1))
    throw std::invalid_argument("pool_fraction: must be in (0, 1], got " + number_text(c.pool_fraction));
  cache::parse_trace_format(c.trace_format);  // throws naming the allowed formats
  if (c.stack != "disk") {
    if (!c.trace_path.empty()) throw std::invalid_argument("trace_path: only the disk stack records traces");
    return;
  }
  if (c.key_compare == "generic")
    throw std::invalid_argument("key_compare: the disk stack uses integer keys (allowed here: auto, integer)");
  if (c.meter != "none") throw std::invalid_argument("meter: the disk stack is not metered (allowed here: none)");
}
}  // namespace

void check_fits_in_memory(u32 warehouses) {
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page = ::sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page <= 0) return;  // unknown: nothing to compare with
  const u64 physical = static_cast<u64>(pages) * static_cast<u64>(page);
  const u64 needed = u64{warehouses} * kWarehouseBytes;
  if (needed <= physical) return;
  char line[200];
  std::snprintf(line, sizeof(line),
                "warehouses: %u warehouses need about %.1f GB of memory (about %llu MB each); this machine has "
                "%.1f GB",
                warehouses, static_cast<double>(needed) / 1e9,
                static_cast<unsigned long long>(kWarehouseBytes >> 20), static_cast<double>(physical) / 1e9);
  throw std::invalid_argument(line);
}

void check_warehouses(u32 warehouses) {
  if (warehouses < 1 || warehouses > kMaxWarehouses)
    throw std::invalid_argument("warehouses: must be in 1.." + std::to_string(kMaxWarehouses) + ", got " +
                                std::to_string(warehouses));
}

void check_seconds_and_mix(const RunConfig& c) {
  if (!(c.seconds >= 0) || !std::isfinite(c.seconds))
    throw std::invalid_argument("seconds: must be a finite number >= 0");
  double total = 0;
  for (int i = 0; i < kTxnTypeCount; ++i) {
    if (!(c.mix[i] >= 0) || !std::isfinite(c.mix[i]))
      throw std::invalid_argument(std::string("mix: weight of ") + kTxnTypeNames[i] + " must be a finite number >= 0");
    total += c.mix[i];
  }
  if (total <= 0) throw std::invalid_argument("mix: weights must sum to more than 0");
}

void validate(const RunConfig& c) {
  check_warehouses(c.warehouses);
  if (c.transactions == 0 && c.seconds <= 0)
    throw std::invalid_argument("transactions: must be > 0 unless seconds > 0");
  check_seconds_and_mix(c);
  const int step = stack_step(c.stack);
  if (c.page_size != 0) check_page_size("page_size", c.page_size, kMinPageSize, kMaxPageSize, "0 (the stack's default) or ");
  if (c.key_compare != "auto" && c.key_compare != "generic" && c.key_compare != "integer")
    throw std::invalid_argument("key_compare: invalid value '" + c.key_compare +
                                "' (allowed: auto, generic, integer)");
  if (step >= 0 && c.key_compare != "auto" && c.key_compare != step_key_compare(step))
    throw std::invalid_argument("key_compare: stack " + c.stack + " uses " + step_key_compare(step) +
                                " keys; only the bare stack takes a choice (allowed here: auto, " +
                                step_key_compare(step) + ")");
  if (c.meter != "none" && c.meter != "perf")
    throw std::invalid_argument("meter: invalid value '" + c.meter + "' (allowed: none, perf)");
  if (c.meter == "perf" && step == kOptimalStep)
    throw std::invalid_argument("meter: the optimal kernel has no phases to meter (allowed for optimal: none)");
  if (c.progress_every == 0) throw std::invalid_argument("progress_every: must be >= 1");
  if (c.terminals < 1 || c.terminals > kMaxTerminals)
    throw std::invalid_argument("terminals: must be in 1.." + std::to_string(kMaxTerminals) + ", got " +
                                std::to_string(c.terminals));
  if (c.terminals > 1) {
    if (!find_stack(c.stack).concurrent) {
      std::string allowed;
      for (const StackInfo& s : kStacks)
        if (s.concurrent) allowed += (allowed.empty() ? "" : ", ") + std::string(s.name);
      throw std::invalid_argument("terminals: more than 1 needs a stack with locking, latching and the main log "
                                  "(allowed: " + allowed + "), got stack " + c.stack);
    }
    if (!c.trace_path.empty())
      throw std::invalid_argument("trace_path: a reference string is recorded by one terminal only (terminals 1)");
    if (c.meter != "none")
      throw std::invalid_argument("meter: per-phase counters need terminals 1 (allowed with more: none)");
  }
  validate_disk(c);
  if (c.stack != "disk") check_fits_in_memory(c.warehouses);  // E5's database lives in a file
}

RunConfig resolve(const RunConfig& config) {
  RunConfig c = config;
  const int step = stack_step(c.stack);
  if (c.key_compare == "auto") c.key_compare = step < 0 ? "integer" : step_key_compare(step);
  if (c.page_size == 0) c.page_size = step < 0 ? 8192 : kLadder[step].page_size;
  return c;
}

}  // namespace dbrepro::tpcc
