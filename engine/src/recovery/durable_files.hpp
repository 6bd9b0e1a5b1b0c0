#pragma once
// A database on disk: a directory holding the last checkpoint's snapshot and
// the log written since (log.<generation>).
//
//   checkpoint: (no transaction active) snapshot to snapshot.tmp, synced;
//               the log continues in a new file log.<g+1> (the old one is
//               flushed first); snapshot.tmp renamed over snapshot, the
//               directory synced; the old log removed. A crash at any point
//               leaves either the old snapshot with its complete log or the
//               new snapshot with its (empty) log.
//   open:       load the snapshot into a fresh engine, redo and undo its log
//               (replay.hpp), then checkpoint: record ids are new, so the
//               log starts again against a snapshot that has them.
//
// Only for stacks whose log is flushed at commit: with any other, a
// commit is not durable.
#include <stdio.h>

#include <string>

#include "recovery/log_reader.hpp"
#include "recovery/replay.hpp"
#include "recovery/snapshot.hpp"

namespace dbrepro::recovery {

class DurableFiles {
 public:
  explicit DurableFiles(std::string dir) : dir_(std::move(dir)) {
    if (dir_.empty()) throw std::invalid_argument("database directory: empty path");
    struct stat st{};
    if (::stat(dir_.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
      throw std::invalid_argument("database directory '" + dir_ + "' does not exist or is not a directory");
  }

  // Whether the directory holds a database (a snapshot).
  bool exists() const { return file_exists(snapshot_path()); }
  // The log file an engine opened on this directory writes until its first checkpoint.
  std::string pending_log_path() const { return dir_ + "/log.pending"; }
  u64 generation() const { return generation_; }
  const std::string& dir() const { return dir_; }

  template <class E>
  void checkpoint(E& engine) {
    static_assert(E::StackType::DiskLog::kFlushes, "a durable database needs a log flushed at commit");
    const u64 next = generation_ + 1;
    write_snapshot(engine, dir_ + "/snapshot.tmp", next);
    engine.log().switch_file(log_path(next));
    sync_directory(dir_);
    if (::rename((dir_ + "/snapshot.tmp").c_str(), snapshot_path().c_str()) != 0)
      throw io_error(snapshot_path(), "rename");
    sync_directory(dir_);
    if (generation_ > 0) ::unlink(log_path(generation_).c_str());
    ::unlink(pending_log_path().c_str());
    generation_ = next;
  }

  // Rebuilds the database in `engine` (fresh, its tables created and empty).
  template <class E>
  ReplayStats open(E& engine) {
    RidMap rids;
    generation_ = load_snapshot(engine, snapshot_path(), rids);
    const LogImage log = read_log(log_path(generation_));
    const ReplayStats stats = Replay<E>(engine, rids).run(log);
    checkpoint(engine);
    return stats;
  }

 private:
  std::string snapshot_path() const { return dir_ + "/snapshot"; }
  std::string log_path(u64 generation) const { return dir_ + "/log." + std::to_string(generation); }

  std::string dir_;
  u64 generation_ = 0;
};

}  // namespace dbrepro::recovery
