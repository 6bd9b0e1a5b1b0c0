#pragma once
// TPC-C on a database that lives in a directory (recovery/durable_files.hpp):
// the crash test's child and checker, and the native CLI's `durable-run` and
// `recover` commands.
//
// durable_run: opens the database in `dir` (recovering it: redo, undo,
//   checkpoint) or creates and loads it, then runs `terminals` threads; after
//   each commit returns, appends "<type> <stamp>\n" to acks_path with one
//   write(2) (driver/tpcc/acks_file.hpp), so a kill at any moment leaves only
//   whole lines of commits that were acknowledged. Checkpoints every
//   checkpoint_every seconds.
// durable_verify: opens the database (creating one only when asked),
//   checks the TPC-C consistency conditions and that every acknowledged
//   stamp in acks_paths is present.
//
// Both check every argument before the directory is written: the settings
// (validate_durable: the settings table's ranges, and a durable run's own),
// the acks files (read whole, or opened for appending outside the database
// directory), the directory itself (locked, every file read and checked).
// A refusal leaves the directory as it was. The directory is held by its
// descriptor from then on (recovery/durable_files.hpp): a run keeps writing
// where it started whatever its path names later.
#include <stdexcept>
#include <string>
#include <vector>

#include "driver/tpcc/run_config.hpp"

namespace dbrepro::tpcc {

// A commit's stamp (terminal_clock_base, driver/tpcc/terminals.hpp) is the run
// id in its top 24 bits, terminal + 1 in the next 12 and the terminal's
// count in the low 28: a larger run id (or terminal) would alias a smaller
// one's stamps, and `recover --acks` could find one run's commits in
// another's rows. Both are refused (std::invalid_argument).
inline constexpr u64 kMaxRunId = (u64{1} << 24) - 1;
inline constexpr u32 kMaxDurableTerminals = (1u << 12) - 1;  // terminal + 1 <= 2^12 - 1

struct DurableRunConfig {
  std::string dir;
  RunConfig run;                 // warehouses, terminals, seconds/transactions, mix, seed, stack (step0 or step1)
  u64 run_id = 1;                // keeps this run's commit stamps apart from other runs' (0..kMaxRunId)
  std::string acks_path;         // "" : no acknowledgements written
  double checkpoint_every = 0;   // seconds between checkpoints (0: only at open)
};

// Throws std::invalid_argument (one line naming the setting and its limits)
// for a run neither command can take: a stack other than step0 or step1,
// warehouses outside 1..65535 or beyond this machine's memory, terminals
// outside 1..kMaxDurableTerminals, seconds or mix as validate() refuses them.
void validate_durable(const RunConfig& run);
// The terminals a durable run may have (the CLI checks its option's value
// with it before the value is narrowed to 32 bits).
void check_durable_terminals(u64 terminals);

struct DurableVerdict {
  std::string json;  // one line
  bool ok = false;   // consistent, and no acknowledged commit missing
};

// A periodic checkpoint failed (e.g. the disk is full): the run stopped
// before any further transaction; the message says why.
struct CheckpointFailed : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Returns a JSON object (one line). Throws recovery::Refused for a database
// directory that cannot be opened without loss (damaged, missing files,
// broken log chain, in use), CheckpointFailed as above.
std::string durable_run(const DurableRunConfig& config);
// `create`: without it, a directory holding no database is refused
// (recovery::Refused) rather than given a new, empty one to check.
DurableVerdict durable_verify(const std::string& dir, const RunConfig& run, const std::vector<std::string>& acks_paths,
                              bool create = false);

}  // namespace dbrepro::tpcc
