#pragma once
// A database on disk: a directory holding the last checkpoint's snapshot and
// the log written since (log.<generation>), both naming the database (a
// random id chosen at creation) and the generation, so that a log that does
// not continue the snapshot is recognised. An exclusive flock on the
// directory itself admits one process at a time (a lock file could be
// unlinked while held, and the next process would lock a new one).
//
//   checkpoint: (no transaction active) snapshot to snapshot.tmp, synced;
//               the log continues in a new file log.<g+1> (the old one is
//               flushed first); snapshot.tmp renamed over snapshot, the
//               directory synced; the old log removed. A crash at any point
//               leaves either the old snapshot with its complete log or the
//               new snapshot with its (empty) log, plus leftovers that the
//               next open removes (snapshot.tmp, an empty log.<g+1>, older
//               logs, log.pending).
//   open:       inspect: read and check every file (snapshot, log chain,
//               log records) and decide what is left over (and that it is
//               ours), writing nothing;
//               remove_leftovers: remove them (so that a failed checkpoint's
//               snapshot.tmp on a full disk is gone before the first byte is
//               written); then, in a fresh engine (whose log.pending is the
//               first file written), recover: load the snapshot, redo and
//               undo its log (replay.hpp), checkpoint: record ids are new,
//               so the log starts again against a snapshot that has them.
//
// The directory is held, not its name: every file is opened, renamed,
// removed and synced relative to the descriptor that holds the lock
// (openat, renameat, unlinkat, fsync of it), never by its path again. A run
// whose directory is renamed, replaced by a new one of the same name, or
// reached through a symlink that is repointed keeps writing where it
// started; another process may open the new directory under the old name.
//
// Only our files (issue 56): a directory without a snapshot may hold
// nothing but what an interrupted creation leaves; any other name is
// refused, naming it, before anything is written. A leftover is removed
// only when its first bytes show it is this database's (leftovers.hpp);
// one that is not is refused, naming it. Names that are not a database's
// (directory_listing.hpp) in a directory with a snapshot are left alone.
//
// Refused (file_io.hpp), never re-created or read around, and left exactly
// as found: a directory with a log but no snapshot (other than what an
// interrupted creation leaves), a damaged snapshot or log, a missing log, a
// log of another database or generation, a snapshot or log that is not a
// regular file, and a directory another process has open.
//
// A run notices a directory that vanished (check_held: deleted, or its
// snapshot or log removed or replaced), so that it stops acknowledging
// commits that are in no file any more.
//
// Only for stacks whose log is flushed at commit: with any other, a
// commit is not durable.
#include <fcntl.h>
#include <sys/stat.h>
#include <stdio.h>
#include <sys/file.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "io/printable.hpp"
#include "recovery/directory_listing.hpp"
#include "recovery/leftovers.hpp"
#include "recovery/log_reader.hpp"
#include "recovery/replay.hpp"
#include "recovery/snapshot.hpp"

namespace dbrepro::recovery {

// What opening a database directory found, every file checked, before
// anything is written.
struct Inspection {
  Inspection() = default;
  Inspection(Inspection&&) = default;
  Inspection& operator=(Inspection&&) = default;
  Inspection(const Inspection&) = delete;  // log.records point into log.bytes

  bool database = false;               // a snapshot is there (else a new database is created)
  LogFileTag tag;                      // the snapshot's database and generation (a new database: its new id)
  u64 last_run_id = 0;                 // the largest run id a run on the database took (0: none yet)
  std::vector<u64> records;            // per table (catalog id - 1), as the snapshot holds them
  u64 stored_bytes = 0;                // the snapshot's and the log's bytes
  std::vector<std::byte> snapshot;     // its blocks' bytes, checked
  LogImage log;                        // log.<generation>, checked
  std::vector<std::string> leftovers;  // names (in the directory) that crashes and failed checkpoints left
};

// The directory of a running database was deleted, or its snapshot or log
// removed or replaced: the run stops before it acknowledges another commit.
struct Vanished : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class DurableFiles {
 public:
  explicit DurableFiles(std::string dir) : dir_(std::move(dir)), shown_(io::printable(dir_)) {
    if (dir_.empty()) throw std::invalid_argument("database directory: empty path");
    // The path is resolved once, here: from now on the directory is this descriptor.
    lock_fd_ = ::open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (lock_fd_ < 0) {
      if (errno == ENOENT || errno == ENOTDIR)
        throw std::invalid_argument("database directory '" + shown_ + "' does not exist or is not a directory");
      throw io_error(shown_, "open directory");
    }
    if (::flock(lock_fd_, LOCK_EX | LOCK_NB) != 0) {
      const int error = errno;
      ::close(lock_fd_);
      if (error == EWOULDBLOCK)
        throw Refused("database directory '" + shown_ +
                      "' is in use by another process (it holds the directory's lock)");
      errno = error;
      throw io_error(shown_, "flock");
    }
  }
  ~DurableFiles() { ::close(lock_fd_); }  // releases the lock
  DurableFiles(const DurableFiles&) = delete;
  DurableFiles& operator=(const DurableFiles&) = delete;

  // What the directory holds, every file read and checked; writes nothing
  // (a refusal leaves the directory exactly as it was found). Without a
  // snapshot, only what an interrupted creation leaves may be there
  // (log.pending, and from the first checkpoint snapshot.tmp with a log.1
  // holding no records), each of it shown to be ours: that is left over
  // and the caller creates the database (found.tag holds its new id). Any
  // other file without a snapshot is refused. `layout`: the tables the
  // engine will have (snapshot.hpp).
  Inspection inspect(const TableLayout& layout) const {
    const Listing files = list_directory(lock_fd_, shown_);
    if (!files.snapshot) {
      Inspection found = without_snapshot(files);
      found.tag.database_id = new_database_id();
      return found;
    }
    Inspection found;
    found.database = true;
    found.snapshot = read_snapshot(at(kSnapshotName));
    const SnapshotSummary summary = check_snapshot(found.snapshot, at(kSnapshotName).shown, layout);
    found.tag = summary.tag;
    found.last_run_id = summary.last_run_id;
    found.records = summary.records;
    const u64 g = found.tag.generation;
    for (u64 other : files.logs)
      if (other > g + 1 || (other == g + 1 && !holds_no_records(log_name(other))))
        throw Refused(at(log_name(other)).shown + ": a log newer than the snapshot (generation " +
                      std::to_string(g) + "): the log chain is broken (was the snapshot replaced by an older one?)");
    const io::FileAt log = at(log_name(g));
    if (!file_exists(log))
      throw Refused(log.shown + ": missing; the snapshot (generation " + std::to_string(g) +
                    ") continues in it, and reading it as empty would lose every commit since that checkpoint");
    found.log = read_log(log, found.tag);
    found.stored_bytes = found.snapshot.size() + found.log.bytes.size();
    const u64 id = found.tag.database_id;
    if (files.snapshot_tmp) leftover(found, kSnapshotTmpName, is_our_snapshot_tmp(at(kSnapshotTmpName), id));
    if (files.pending_log) leftover(found, kPendingLogName, is_our_log(at(kPendingLogName), LogFileTag{}));
    for (u64 other : files.logs)
      if (other != g) leftover(found, log_name(other), is_our_log(at(log_name(other)), LogFileTag{id, other}));
    return found;
  }

  // Removes what inspect() found left over (crashes, failed checkpoints);
  // returns one line naming them with their sizes ("" if none).
  std::string remove_leftovers(const Inspection& found) const {
    std::string removed;
    for (const std::string& name : found.leftovers) {
      struct stat st{};
      const long long bytes =
          ::fstatat(lock_fd_, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 ? static_cast<long long>(st.st_size) : 0;
      remove_file(name);
      removed += (removed.empty() ? "" : ", ") + name + " (" + std::to_string(bytes) + " bytes)";
    }
    if (removed.empty()) return removed;
    sync_directory(lock_fd_, shown_);
    return "removed what a crash or a failed checkpoint left in '" + shown_ + "': " + removed;
  }

  // Whether the directory holds a database (a snapshot); without one, what
  // an interrupted creation left is removed and the caller creates it
  // (anything else is refused, as by inspect()).
  bool exists() const {
    const Listing files = list_directory(lock_fd_, shown_);
    if (files.snapshot) return true;
    remove_leftovers(without_snapshot(files));
    return false;
  }

  // The ids that inspect() found (or chose, for a new database), kept for
  // the checkpoints to come.
  void adopt(const Inspection& found) {
    database_id_ = found.tag.database_id;
    generation_ = found.tag.generation;
    last_run_id_ = found.last_run_id;
  }
  // A run starts: its id is recorded by the next checkpoint (the one every
  // open makes before the first transaction), so no later run takes it.
  void start_run(u64 run_id) { last_run_id_ = std::max(last_run_id_, run_id); }

  // The log file an engine opened on this directory writes until its first
  // checkpoint (in the directory held, whatever its path names now).
  io::FileAt pending_log_path() const { return at(kPendingLogName); }
  u64 generation() const { return generation_; }
  u64 database_id() const { return database_id_; }
  u64 last_run_id() const { return last_run_id_; }
  const std::string& dir() const { return dir_; }
  // The directory's path as a one-line message shows it.
  const std::string& shown_dir() const { return shown_; }
  // The descriptor of the directory held (and locked): the directory's
  // identity (fstat) for callers that must keep their own files out of it.
  int dir_fd() const { return lock_fd_; }

  // Throws Vanished (one line) where the directory held has no name any
  // more (deleted: `rm -rf`, or the second half of a move to another file
  // system), or the snapshot or log it wrote last is gone or replaced.
  // Renamed, it still has one: the run goes on where it started.
  void check_held() const {
    struct stat st{};
    if (::fstat(lock_fd_, &st) != 0) throw io_error(shown_, "stat directory");
    if (st.st_nlink == 0)
      throw Vanished("database directory '" + shown_ +
                     "' was deleted during the run: stopped before acknowledging another commit (the commits in "
                     "its files are gone with it)");
    if (log_id_.ino == 0) return;  // no checkpoint of this process yet
    expect_held(kSnapshotName, snapshot_id_);
    expect_held(log_name(generation_), log_id_);
  }

  template <class E>
  void checkpoint(E& engine) {
    static_assert(E::StackType::DiskLog::kFlushes, "a durable database needs a log flushed at commit");
    check_held();
    if (database_id_ == 0) database_id_ = new_database_id();
    const LogFileTag next{database_id_, generation_ + 1};
    write_snapshot(engine, at(kSnapshotTmpName), next, last_run_id_);
    engine.log().switch_file(at(log_name(next.generation)), next);
    sync_directory(lock_fd_, shown_);
    if (::renameat(lock_fd_, kSnapshotTmpName, lock_fd_, kSnapshotName) != 0)
      throw io_error(at(kSnapshotName).shown, "rename");
    sync_directory(lock_fd_, shown_);
    if (generation_ > 0) ::unlinkat(lock_fd_, log_name(generation_).c_str(), 0);
    ::unlinkat(lock_fd_, kPendingLogName, 0);
    generation_ = next.generation;
    snapshot_id_ = identity(kSnapshotName);
    log_id_ = identity(log_name(generation_));
  }

  // Rebuilds the database that inspect() found (and checked) in `engine`
  // (fresh, its tables created and empty): loads the snapshot, replays the
  // log, checkpoints. Call remove_leftovers() first.
  template <class E>
  ReplayStats recover(E& engine, Inspection found) {
    RidMap rids;
    load_snapshot(engine, found.snapshot, at(kSnapshotName).shown, rids);
    std::vector<std::byte>().swap(found.snapshot);  // loaded: its memory is not needed during the replay
    database_id_ = found.tag.database_id;
    generation_ = found.tag.generation;
    last_run_id_ = std::max(last_run_id_, found.last_run_id);
    const ReplayStats stats = Replay<E>(engine, rids).run(found.log);
    checkpoint(engine);
    return stats;
  }

  // inspect(), remove_leftovers() and recover() on an engine already made
  // (its log.pending, already written, stays).
  template <class E>
  ReplayStats open(E& engine) {
    Inspection found = inspect(table_layout(engine));
    if (!found.database) throw Refused("database directory '" + shown_ + "' holds no snapshot");
    std::erase(found.leftovers, std::string(kPendingLogName));
    remove_leftovers(found);
    return recover(engine, std::move(found));
  }

 private:
  struct FileId {
    dev_t dev = 0;
    ino_t ino = 0;
  };

  // Without a snapshot: refused unless every name is what an interrupted
  // creation leaves, each shown to be ours; those are left over.
  Inspection without_snapshot(const Listing& files) const {
    if (!files.foreign.empty())
      throw Refused("database directory '" + shown_ + "' holds '" + io::printable(files.foreign.front()) +
                    "', which is not a file of a dbrepro database, and no snapshot: refusing to create a database "
                    "among files that are not its own (give an empty directory, or a database's)");
    const bool interrupted_creation =
        files.logs.empty() || (files.logs == std::vector<u64>{1} && files.snapshot_tmp && holds_no_records(log_name(1)));
    if (!interrupted_creation) {
      std::string names;
      for (u64 g : files.logs) names += (names.empty() ? "log." : ", log.") + std::to_string(g);
      throw Refused("database directory '" + shown_ + "' holds " + names +
                    " but no snapshot: refusing to create a new database over them (restore the snapshot, or "
                    "empty the directory to start afresh)");
    }
    Inspection found;
    if (files.snapshot_tmp) leftover(found, kSnapshotTmpName, is_our_snapshot_tmp(at(kSnapshotTmpName), 0));
    if (files.pending_log) leftover(found, kPendingLogName, is_our_log(at(kPendingLogName), LogFileTag{}));
    for (u64 g : files.logs) leftover(found, log_name(g), is_our_first_log(at(log_name(g))));
    return found;
  }

  // A leftover is removed only where its first bytes show it is ours.
  void leftover(Inspection& found, const std::string& name, bool ours) const {
    if (!ours)
      throw Refused(at(name).shown + ": not a file this database wrote (it does not begin as its " +
                    (name == kSnapshotTmpName ? "snapshot" : "log") +
                    " would): refusing to remove or overwrite it (move it out of the directory)");
    found.leftovers.push_back(name);
  }

  bool holds_no_records(const std::string& name) const {
    struct stat st{};
    return ::fstatat(lock_fd_, name.c_str(), &st, 0) == 0 && static_cast<u64>(st.st_size) <= sizeof(LogFileHeader);
  }

  void remove_file(const std::string& name) const {
    if (::unlinkat(lock_fd_, name.c_str(), 0) != 0 && errno != ENOENT) throw io_error(at(name).shown, "unlink");
  }

  FileId identity(const std::string& name) const {
    struct stat st{};
    if (::fstatat(lock_fd_, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) throw io_error(at(name).shown, "stat");
    return FileId{st.st_dev, st.st_ino};
  }

  void expect_held(const std::string& name, const FileId& id) const {
    struct stat st{};
    if (::fstatat(lock_fd_, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && st.st_dev == id.dev && st.st_ino == id.ino)
      return;
    throw Vanished(at(name).shown + " was removed or replaced during the run: stopped before acknowledging another "
                   "commit (the commits it held may be gone)");
  }

  static u64 new_database_id() {
    std::random_device device;
    u64 id = 0;
    while (id == 0) id = (u64{device()} << 32) ^ device();
    return id;
  }

  // A file in the directory held, named in messages by the path given.
  io::FileAt at(const std::string& name) const {
    return io::FileAt(lock_fd_, name, shown_ + "/" + io::printable(name));
  }

  std::string dir_;
  std::string shown_;  // dir_ as a one-line message shows it
  int lock_fd_ = -1;
  u64 database_id_ = 0;
  u64 generation_ = 0;
  u64 last_run_id_ = 0;
  FileId snapshot_id_;  // what this process's last checkpoint wrote, for check_held()
  FileId log_id_;       // (ino 0: none yet)
};

}  // namespace dbrepro::recovery
