#include "driver/tpcc/durable_run.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <optional>
#include <stdexcept>
#include <thread>

#include "common/json_writer.hpp"
#include "driver/tpcc/acks_file.hpp"
#include "driver/tpcc/durable_report.hpp"
#include "driver/tpcc/terminals.hpp"
#include "recovery/durable_files.hpp"
#include "recovery/tpcc_layout.hpp"
#include "recovery/tpcc_stamps.hpp"
#include "stack/engine.hpp"
#include "stack/ladder.hpp"
#include "tpcc/consistency.hpp"
#include "tpcc/loader.hpp"

namespace dbrepro::tpcc {

namespace {

using recovery::DurableFiles;
using recovery::Inspection;
using recovery::Refused;

// The warehouses a database holds: its snapshot's count of warehouse rows
// (a new database: the run's).
u64 warehouses_of(const Inspection& found, const RunConfig& run) {
  if (!found.database) return run.warehouses;
  const recovery::TableLayout layout = database_layout();
  for (size_t t = 0; t < layout.size(); ++t)
    if (layout[t].name == Warehouse::kName) return found.records.at(t);
  throw std::logic_error("the TPC-C layout has no warehouse table");
}

// The database's own size, checked before anything is written: warehouses
// given must agree with it, and it must fit in memory.
void check_size(const DurableRunConfig& config, const DurableFiles& files, const Inspection& found) {
  if (!found.database) return;  // created at the run's size, which validate_durable checked
  const u64 stored = warehouses_of(found, config.run);
  if (stored < 1 || stored > kMaxWarehouses)
    throw Refused("database directory '" + files.shown_dir() + "': its snapshot holds " + std::to_string(stored) +
                  " warehouses (1.." + std::to_string(kMaxWarehouses) + " is a database's)");
  if (config.warehouses_given && stored != config.run.warehouses)
    throw std::invalid_argument("warehouses: " + std::to_string(config.run.warehouses) +
                                " given, but the database in '" + files.shown_dir() + "' has " +
                                std::to_string(stored) + " (leave warehouses out to open it at its own size)");
  check_fits_in_memory(static_cast<u32>(stored));
}

// One past the database's last run, or the one given if it is above it.
u64 take_run_id(const DurableRunConfig& config, const DurableFiles& files, const Inspection& found) {
  const u64 last = found.last_run_id;
  if (config.run_id) {
    if (*config.run_id <= last)
      throw std::invalid_argument("run_id: " + std::to_string(*config.run_id) + " is not above the last run of the " +
                                  "database in '" + files.shown_dir() + "' (run " + std::to_string(last) +
                                  "): each run needs an id of its own (give one above " + std::to_string(last) +
                                  ", or leave run_id out)");
    return *config.run_id;
  }
  if (last >= kMaxRunId)
    throw Refused("database directory '" + files.shown_dir() + "' has had run " + std::to_string(kMaxRunId) +
                  ", the largest id a commit stamp holds: no run id is left for another run");
  return last + 1;
}

// An engine on the directory, its database opened (recovered) or loaded.
template <class S>
struct OpenDatabase {
  using E = Engine<S>;
  // The directory is locked and inspected (refused without a byte
  // written) and its size checked; `before_writing(files, found)` may
  // refuse too, as nothing is written yet; then the directory is rid of
  // leftovers before the engine writes its first log file.
  template <class BeforeWriting>
  OpenDatabase(const DurableRunConfig& config, BeforeWriting&& before_writing)
      : files(config.dir),
        found(inspect(files, config, before_writing)),
        engine(options(files, found, config.run)),
        db(engine) {
    Random load_rng(config.run.seed);
    load_constants = NURandConstants::for_load(load_rng);
    if (found.database) {
      replay = files.recover(engine, std::move(found));
      db.warehouses = static_cast<u32>(db.warehouse.size());
    } else {
      created = true;
      load(db, config.run.warehouses, load_rng, load_constants);
      files.checkpoint(engine);
    }
  }
  template <class BeforeWriting>
  static Inspection inspect(DurableFiles& files, const DurableRunConfig& config, BeforeWriting& before_writing) {
    Inspection found = files.inspect(database_layout());
    files.adopt(found);
    check_size(config, files, found);
    before_writing(files, found);
    const std::string removed = files.remove_leftovers(found);
    if (!removed.empty()) std::cerr << "dbrepro-native: " << removed << std::endl;
    return found;
  }
  // The cache sized by the database's own warehouses and stored bytes.
  static EngineOptions options(const DurableFiles& files, const Inspection& found, const RunConfig& run) {
    EngineOptions o;
    o.page_size = 8192;
    o.capacity_pages = durable_cache_pages(static_cast<u32>(warehouses_of(found, run)), found.stored_bytes,
                                           o.page_size);
    o.log_path = files.pending_log_path();  // in the directory held (its descriptor)
    return o;
  }
  DurableFiles files;
  Inspection found;  // moved into the engine by recover()
  E engine;
  Database<E> db;
  NURandConstants load_constants;
  recovery::ReplayStats replay;
  bool created = false;
};

template <class S>
std::string run_on_stack(const DurableRunConfig& config) {
  const auto open_start = std::chrono::steady_clock::now();
  std::optional<AcksWriter> acks;  // opened once the directory is inspected, before it is written
  u64 run_id = 0;
  OpenDatabase<S> open(config, [&](DurableFiles& files, const Inspection& found) {
    run_id = take_run_id(config, files, found);
    files.start_run(run_id);  // recorded by the open's checkpoint
    acks.emplace(config.acks_paths.empty() ? std::string() : config.acks_paths.front(), files.dir_fd(),
                 files.shown_dir(), AcksHeader{run_id, files.database_id()});
  });
  const double open_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - open_start).count();
  RunConfig run = config.run;
  run.warehouses = open.db.warehouses;
  Random run_rng(run.seed ^ 0x5DEECE66Dull);
  const NURandConstants constants = NURandConstants::for_run(open.load_constants, run_rng);

  std::mutex acks_mutex;
  TerminalGate gate(static_cast<int>(run.terminals));
  TerminalControl control;
  control.gate = &gate;
  u64 checkpoints = 0;
  std::thread checkpointer;
  std::atomic<bool> done{false};
  std::string checkpoint_error;  // set by the checkpointer, read after it is joined
  if (config.checkpoint_every > 0) {
    checkpointer = std::thread([&] {
      auto next = std::chrono::steady_clock::now() + std::chrono::duration<double>(config.checkpoint_every);
      while (!done.load()) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        if (std::chrono::steady_clock::now() < next) continue;
        gate.close();
        if (!done.load()) {
          try {
            open.files.checkpoint(open.engine);
            ++checkpoints;
          } catch (const std::exception& e) {
            // No transaction runs after a failed checkpoint (its log may
            // already be the next generation's): the terminals stop at the
            // gate, and the run ends with the message. The next open
            // removes what the checkpoint left.
            checkpoint_error = e.what();
            control.stop.store(true);
            done.store(true);
          }
        }
        gate.open();
        next = std::chrono::steady_clock::now() + std::chrono::duration<double>(config.checkpoint_every);
      }
    });
  }
  std::array<TxnStats, kTxnTypeCount> totals{};
  try {
    totals = run_terminals(open.engine, run, constants, run_id, control, [&](u32, TxnType type, u64 stamp) {
      // A commit is acknowledged only while the files it went to are still
      // the directory's (no checkpoint runs meanwhile: the gate waits for
      // this terminal).
      open.files.check_held();
      if (type != TxnType::kNewOrder && type != TxnType::kPayment) return;
      std::lock_guard<std::mutex> guard(acks_mutex);
      acks->ack(type, stamp);
    });
  } catch (...) {
    done.store(true);
    if (checkpointer.joinable()) checkpointer.join();
    throw;
  }
  done.store(true);
  if (checkpointer.joinable()) checkpointer.join();
  if (!checkpoint_error.empty()) throw CheckpointFailed("checkpoint failed: " + checkpoint_error);

  u64 commits = 0, retries = 0;
  for (const TxnStats& s : totals) {
    commits += s.commits;
    retries += s.retries;
  }
  JsonWriter w;
  w.begin_object();
  write_open(w, open.replay, open.created);
  w.field("open_seconds", open_seconds)
      .field("database", database_id_text(open.files.database_id()))
      .field("run_id", run_id)
      .field("warehouses", run.warehouses)
      .field("generation", open.files.generation())
      .field("commits", commits)
      .field("retries", retries)
      .field("checkpoints", checkpoints);
  w.end_object();
  return std::move(w).str();
}

template <class S>
DurableVerdict verify_on_stack(const DurableRunConfig& config, bool create) {
  // Every acks file read whole (and refused, naming the file and line, if
  // any of it cannot be read) before the directory is opened; kept open to
  // be read again once the database is.
  std::vector<AcksFile> acks;
  for (const std::string& path : config.acks_paths) acks.emplace_back(path);
  OpenDatabase<S> open(config, [&](const DurableFiles& files, const Inspection& found) {
    if (!found.database && !create)
      throw Refused("database directory '" + files.shown_dir() +
                    "' holds no database (no snapshot): recover creates one only when asked (--create)");
  });
  const auto checks = check_consistency(open.db);
  const CommitStamps stamps = commit_stamps(open.db);
  const std::vector<RunAcks> runs = check_acks(acks, stamps, open.files.database_id());
  JsonWriter w;
  w.begin_object();
  write_open(w, open.replay, open.created);
  w.field("database", database_id_text(open.files.database_id()))
      .field("last_run", open.files.last_run_id())
      .field("warehouses", open.db.warehouses)
      .field("generation", open.files.generation());
  write_consistency(w, checks);
  write_acks(w, runs);
  w.field("new_orders", static_cast<u64>(stamps.new_orders.size()))
      .field("payments", static_cast<u64>(stamps.payments.size()));
  w.end_object();
  bool ok = std::all_of(checks.begin(), checks.end(), [](const ConsistencyCheck& c) { return c.passed; });
  for (const RunAcks& run : runs) ok = ok && run.missing == 0;
  return DurableVerdict{std::move(w).str(), ok};
}

}  // namespace

DurableRunConfig::DurableRunConfig() {
  run.stack = "step0";
  run.terminals = 4;
  run.transactions = 0;  // until killed, unless limited
}

void check_durable_terminals(u64 terminals) {
  if (terminals < 1 || terminals > kMaxDurableTerminals)
    throw std::invalid_argument("terminals: must be in 1.." + std::to_string(kMaxDurableTerminals) + ", got " +
                                std::to_string(terminals) + " (a commit's stamp holds the terminal in 12 bits)");
}

void check_checkpoint_every(double seconds) {
  if (!(seconds >= 0 && seconds <= kMaxCheckpointEvery))
    throw std::invalid_argument("checkpoint_every: must be in 0..86400 seconds, got " + number_text(seconds));
}

void validate_durable(const DurableRunConfig& config, bool appending) {
  if (config.dir.empty()) throw std::invalid_argument("dir: required (the database directory)");
  const RunConfig& run = config.run;
  if (run.stack != "step0" && run.stack != "step1")
    throw std::invalid_argument("stack: a durable database needs a log flushed at commit: step0 or step1, got '" +
                                run.stack + "'");
  check_warehouses(run.warehouses);
  check_durable_terminals(run.terminals);
  check_seconds_and_mix(run);
  check_fits_in_memory(run.warehouses);
  if (config.run_id && (*config.run_id < 1 || *config.run_id > kMaxRunId))
    throw std::invalid_argument("run_id: must be in 1.." + std::to_string(kMaxRunId) + ", got " +
                                std::to_string(*config.run_id) + " (a commit's stamp holds the run id in 24 bits)");
  check_checkpoint_every(config.checkpoint_every);
  if (appending && config.acks_paths.size() > 1)
    throw std::invalid_argument("acks: given " + std::to_string(config.acks_paths.size()) +
                                " times (durable-run appends to one file)");
}

size_t durable_cache_pages(u32 warehouses, u64 stored_bytes, u32 page_size) {
  const u64 data = std::max(u64{512 << 20} * warehouses, 2 * stored_bytes);
  return static_cast<size_t>((data + (u64{1} << 30)) / page_size);
}

std::string durable_run(const DurableRunConfig& config) {
  validate_durable(config, true);
  return config.run.stack == "step0" ? run_on_stack<Step0>(config) : run_on_stack<Step1>(config);
}

DurableVerdict durable_verify(const DurableRunConfig& config, bool create) {
  validate_durable(config, false);
  return config.run.stack == "step0" ? verify_on_stack<Step0>(config, create)
                                     : verify_on_stack<Step1>(config, create);
}

}  // namespace dbrepro::tpcc
