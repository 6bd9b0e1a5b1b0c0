#include "driver/tpcc/durable_run.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "driver/tpcc/acks_file.hpp"
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
using recovery::ReplayStats;

std::string replay_json(const ReplayStats& s, bool created) {
  std::ostringstream out;
  out << "{\"created\": " << (created ? "true" : "false") << ", \"log_records\": " << s.records
      << ", \"committed\": " << s.committed << ", \"aborted\": " << s.aborted << ", \"undone\": " << s.undone
      << ", \"undo_records\": " << s.undo_records << ", \"torn_bytes\": " << s.torn_bytes << "}";
  return out.str();
}

std::string consistency_json(const std::vector<ConsistencyCheck>& checks) {
  std::ostringstream out;
  out << "[";
  for (size_t i = 0; i < checks.size(); ++i) {
    std::string detail;
    for (char c : checks[i].detail) detail += (c == '"' || c == '\\') ? '\'' : c;
    out << (i ? ", " : "") << "{\"condition\": " << checks[i].condition
        << ", \"passed\": " << (checks[i].passed ? "true" : "false") << ", \"detail\": \"" << detail << "\"}";
  }
  out << "]";
  return out.str();
}

// An engine on the directory, its database opened (recovered) or loaded.
template <class S>
struct OpenDatabase {
  using E = Engine<S>;
  // The directory is locked and inspected (refused without a byte
  // written); `before_writing(files, found)` may refuse too, as nothing is
  // written yet; then the directory is rid of leftovers before the engine
  // writes its first log file.
  template <class BeforeWriting>
  OpenDatabase(const std::string& dir, const RunConfig& run, BeforeWriting&& before_writing)
      : files(dir), found(inspect(files, before_writing)), engine(options(files, run)), db(engine) {
    Random load_rng(run.seed);
    load_constants = NURandConstants::for_load(load_rng);
    if (found.database) {
      replay = files.recover(engine, std::move(found));
      db.warehouses = static_cast<u32>(db.warehouse.size());
    } else {
      created = true;
      load(db, run.warehouses, load_rng, load_constants);
      files.checkpoint(engine);
    }
  }
  template <class BeforeWriting>
  static recovery::Inspection inspect(const DurableFiles& files, BeforeWriting& before_writing) {
    recovery::Inspection found = files.inspect(database_layout());
    before_writing(files, found);
    const std::string removed = files.remove_leftovers(found);
    if (!removed.empty()) std::cerr << "dbrepro-native: " << removed << std::endl;
    return found;
  }
  static EngineOptions options(const DurableFiles& files, const RunConfig& run) {
    EngineOptions o;
    o.page_size = 8192;
    o.capacity_pages = ((size_t{512} << 20) * run.warehouses + (size_t{1} << 30)) / o.page_size;
    o.log_path = files.pending_log_path();  // in the directory held (its descriptor)
    return o;
  }
  DurableFiles files;
  recovery::Inspection found;  // moved into the engine by recover()
  E engine;
  Database<E> db;
  NURandConstants load_constants;
  ReplayStats replay;
  bool created = false;
};

template <class S>
std::string run_on_stack(const DurableRunConfig& config) {
  const auto open_start = std::chrono::steady_clock::now();
  std::optional<AcksWriter> acks;  // opened once the directory is held, before it is written
  OpenDatabase<S> open(config.dir, config.run, [&](const DurableFiles& files, const recovery::Inspection&) {
    acks.emplace(config.acks_path, files.dir_fd(), files.dir());
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
    totals = run_terminals(open.engine, run, constants, config.run_id, control, [&](u32, TxnType type, u64 stamp) {
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

  std::ostringstream out;
  u64 commits = 0, retries = 0;
  for (const TxnStats& s : totals) {
    commits += s.commits;
    retries += s.retries;
  }
  out << "{\"open\": " << replay_json(open.replay, open.created) << ", \"open_seconds\": " << open_seconds
      << ", \"generation\": " << open.files.generation() << ", \"commits\": " << commits
      << ", \"retries\": " << retries << ", \"checkpoints\": " << checkpoints << "}";
  return out.str();
}

template <class S>
DurableVerdict verify_on_stack(const std::string& dir, const RunConfig& run, const std::vector<std::string>& acks_paths,
                               bool create) {
  // Every acks file read whole (and refused, naming the file and line, if
  // any of it cannot be read) before the directory is opened.
  std::vector<std::vector<Ack>> acks;
  for (const std::string& path : acks_paths) acks.push_back(read_acks(path));
  OpenDatabase<S> open(dir, run, [&](const DurableFiles& files, const recovery::Inspection& found) {
    if (!found.database && !create)
      throw recovery::Refused("database directory '" + files.dir() +
                              "' holds no database (no snapshot): recover creates one only when asked (--create)");
  });
  const auto checks = check_consistency(open.db);
  const CommitStamps stamps = commit_stamps(open.db);
  u64 acked = 0, missing = 0;
  std::string first_missing;
  for (size_t f = 0; f < acks.size(); ++f) {
    for (const Ack& ack : acks[f]) {
      ++acked;
      const auto& present = ack.type == 'N' ? stamps.new_orders : stamps.payments;
      if (!present.contains(ack.stamp) && missing++ == 0)
        first_missing = std::string(1, ack.type) + " " + std::to_string(ack.stamp) + " in " + acks_paths[f];
    }
  }
  bool consistent = true;
  for (const auto& c : checks) consistent = consistent && c.passed;
  std::ostringstream out;
  out << "{\"open\": " << replay_json(open.replay, open.created) << ", \"generation\": " << open.files.generation()
      << ", \"consistent\": " << (consistent ? "true" : "false") << ", \"consistency\": " << consistency_json(checks)
      << ", \"acknowledged\": " << acked << ", \"missing\": " << missing << ", \"first_missing\": \""
      << first_missing << "\", \"new_orders\": " << stamps.new_orders.size()
      << ", \"payments\": " << stamps.payments.size() << "}";
  return DurableVerdict{out.str(), consistent && missing == 0};
}

}  // namespace

void check_durable_terminals(u64 terminals) {
  if (terminals < 1 || terminals > kMaxDurableTerminals)
    throw std::invalid_argument("terminals: must be in 1.." + std::to_string(kMaxDurableTerminals) + ", got " +
                                std::to_string(terminals) + " (a commit's stamp holds the terminal in 12 bits)");
}

void validate_durable(const RunConfig& run) {
  if (run.stack != "step0" && run.stack != "step1")
    throw std::invalid_argument("stack: a durable database needs a log flushed at commit: step0 or step1, got '" +
                                run.stack + "'");
  check_warehouses(run.warehouses);
  check_durable_terminals(run.terminals);
  check_seconds_and_mix(run);
  check_fits_in_memory(run.warehouses);
}

std::string durable_run(const DurableRunConfig& config) {
  validate_durable(config.run);
  if (config.run_id > kMaxRunId)
    throw std::invalid_argument("run_id: must be in 0.." + std::to_string(kMaxRunId) +
                                " (a commit's stamp holds the run id in 24 bits)");
  if (!(config.checkpoint_every >= 0) || !std::isfinite(config.checkpoint_every))
    throw std::invalid_argument("checkpoint_every: must be a finite number >= 0 (seconds)");
  return config.run.stack == "step0" ? run_on_stack<Step0>(config) : run_on_stack<Step1>(config);
}

DurableVerdict durable_verify(const std::string& dir, const RunConfig& run, const std::vector<std::string>& acks_paths,
                              bool create) {
  validate_durable(run);
  return run.stack == "step0" ? verify_on_stack<Step0>(dir, run, acks_paths, create)
                              : verify_on_stack<Step1>(dir, run, acks_paths, create);
}

}  // namespace dbrepro::tpcc
