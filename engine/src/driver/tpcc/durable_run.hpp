#pragma once
// TPC-C on a database that lives in a directory (recovery/durable_files.hpp):
// the crash test's child and checker, and the native CLI's `durable-run` and
// `recover` commands.
//
// durable_run: opens the database in `dir` (recovering it: redo, undo,
//   checkpoint) or creates and loads it, then runs `terminals` threads; after
//   each commit returns, appends "<type> <stamp>\n" to its acks file with one
//   write(2) (driver/tpcc/acks_file.hpp), so a kill at any moment leaves only
//   whole lines of commits that were acknowledged. Checkpoints every
//   checkpoint_every seconds.
// durable_verify: opens the database (creating one only when asked),
//   checks the TPC-C consistency conditions and that every acknowledged
//   stamp in each acks file is present, each file against its own run.
//
// Both check every argument before the directory is written: the settings
// (validate_durable: durable_fields.hpp's table's ranges, and the run's),
// the acks files (read whole, or opened for appending outside the database
// directory and given this run's header), the directory itself (locked,
// every file read and checked, nothing in it that is not the database's).
// A refusal leaves the directory as it was. The directory is held by its
// descriptor from then on (recovery/durable_files.hpp): a run keeps writing
// where it started whatever its path names later, and stops (exit 1, one
// line) once the directory is deleted.
//
// A database's size is its own (issue 56): opening reads its warehouse
// count and size from the snapshot and sizes the engine's cache by them;
// `warehouses` given for an existing database must agree.
//
// Every run takes a run id that no earlier run on the database took (one
// past the last, recorded in the snapshot at the open's checkpoint; a given
// one must be above it), so no run's commit stamps can be taken for
// another's, and writes it in its acks file's header; recover checks each
// file's acknowledgements against the run and database its header names.
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "driver/tpcc/run_config.hpp"

namespace dbrepro::tpcc {

// A commit's stamp (terminal_clock_base, driver/tpcc/terminals.hpp) is the run
// id in its top 24 bits, terminal + 1 in the next 12 and the terminal's
// count in the low 28: a larger run id (or terminal) would alias a smaller
// one's stamps, and `recover --acks` could find one run's commits in
// another's rows. Both are refused (std::invalid_argument). Run id 0 is the
// load's (its rows' dates are small numbers).
inline constexpr u64 kMaxRunId = (u64{1} << 24) - 1;
inline constexpr u32 kMaxDurableTerminals = (1u << 12) - 1;  // terminal + 1 <= 2^12 - 1
inline constexpr double kMaxCheckpointEvery = 86400;          // seconds: a day

struct DurableRunConfig {
  DurableRunConfig();  // a durable run's defaults: stack step0, 4 terminals, until killed
  std::string dir;
  RunConfig run;                        // warehouses, terminals, seconds/transactions, mix, seed, stack (step0 or step1)
  bool warehouses_given = false;        // an existing database must have run.warehouses
  std::optional<u64> run_id;            // none: one past the database's last run (1..kMaxRunId)
  std::vector<std::string> acks_paths;  // durable-run: at most one, appended to; recover: each checked
  double checkpoint_every = 0;          // seconds between checkpoints (0: only at open)
};

// Throws std::invalid_argument (one line naming the setting and its limits)
// for what neither command can take: no directory, a stack other than step0
// or step1, warehouses outside 1..65535 or beyond this machine's memory,
// terminals outside 1..kMaxDurableTerminals, seconds or mix as validate()
// refuses them, a run id outside 1..kMaxRunId, checkpoint_every outside
// 0..kMaxCheckpointEvery; `appending`: more than one acks file.
void validate_durable(const DurableRunConfig& config, bool appending);
// The terminals a durable run may have (the CLI checks its option's value
// with it before the value is narrowed to 32 bits).
void check_durable_terminals(u64 terminals);
void check_checkpoint_every(double seconds);

struct DurableVerdict {
  std::string json;  // one line
  bool ok = false;   // consistent, and no acknowledged commit missing
};

// A periodic checkpoint failed (e.g. the disk is full): the run stopped
// before any further transaction; the message says why.
struct CheckpointFailed : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The engine's cache for a database of `warehouses` whose files hold
// `stored_bytes` (snapshot and log; 0 for a new one): room for the larger
// of 512 MiB a warehouse and twice what is stored, plus 1 GiB to grow, in
// pages of `page_size` (address space, reserved, not touched).
size_t durable_cache_pages(u32 warehouses, u64 stored_bytes, u32 page_size);

// Returns a JSON object (one line). Throws recovery::Refused for a database
// directory that cannot be opened without loss (damaged, missing files,
// broken log chain, in use, files that are not the database's),
// CheckpointFailed as above, recovery::Vanished for a directory deleted
// during the run.
std::string durable_run(const DurableRunConfig& config);
// `create`: without it, a directory holding no database is refused
// (recovery::Refused) rather than given a new, empty one to check.
DurableVerdict durable_verify(const DurableRunConfig& config, bool create = false);

}  // namespace dbrepro::tpcc
