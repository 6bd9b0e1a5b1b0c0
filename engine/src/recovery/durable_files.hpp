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
//               log records) and decide what is left over, writing nothing;
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
// Refused (file_io.hpp), never re-created or read around, and left exactly
// as found: a directory with a log but no snapshot (other than what an
// interrupted creation leaves), a damaged snapshot or log, a missing log, a
// log of another database or generation, and a directory another process
// has open.
//
// Only for stacks whose log is flushed at commit: with any other, a
// commit is not durable.
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <stdio.h>
#include <sys/file.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

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
  LogFileTag tag;                      // the snapshot's database and generation
  std::vector<std::byte> snapshot;     // its blocks' bytes, checked
  LogImage log;                        // log.<generation>, checked
  std::vector<std::string> leftovers;  // names (in the directory) that crashes and failed checkpoints left
};

class DurableFiles {
 public:
  explicit DurableFiles(std::string dir) : dir_(std::move(dir)) {
    if (dir_.empty()) throw std::invalid_argument("database directory: empty path");
    // The path is resolved once, here: from now on the directory is this descriptor.
    lock_fd_ = ::open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (lock_fd_ < 0) {
      if (errno == ENOENT || errno == ENOTDIR)
        throw std::invalid_argument("database directory '" + dir_ + "' does not exist or is not a directory");
      throw io_error(dir_, "open directory");
    }
    if (::flock(lock_fd_, LOCK_EX | LOCK_NB) != 0) {
      const int error = errno;
      ::close(lock_fd_);
      if (error == EWOULDBLOCK)
        throw Refused("database directory '" + dir_ + "' is in use by another process (it holds the directory's lock)");
      errno = error;
      throw io_error(dir_, "flock");
    }
  }
  ~DurableFiles() { ::close(lock_fd_); }  // releases the lock
  DurableFiles(const DurableFiles&) = delete;
  DurableFiles& operator=(const DurableFiles&) = delete;

  // What the directory holds, every file read and checked; writes nothing
  // (a refusal leaves the directory exactly as it was found). Without a
  // snapshot, only what an interrupted creation leaves may be there
  // (log.pending, and from the first checkpoint snapshot.tmp with a log.1
  // holding no records): that is left over and the caller creates the
  // database. Any other log without a snapshot is refused. `layout`: the
  // tables the engine will have (snapshot.hpp).
  Inspection inspect(const TableLayout& layout) const {
    const Listing files = list();
    Inspection found = without_snapshot(files);
    if (files.pending_log) found.leftovers.push_back(kPendingLog);
    if (!files.snapshot) return found;
    found.database = true;
    found.snapshot = read_snapshot(at(kSnapshot));
    found.tag = check_snapshot(found.snapshot, at(kSnapshot).shown, layout);
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
    for (u64 other : files.logs)
      if (other != g) found.leftovers.push_back(log_name(other));
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
    sync_directory(lock_fd_, dir_);
    return "removed what a crash or a failed checkpoint left in '" + dir_ + "': " + removed;
  }

  // Whether the directory holds a database (a snapshot); without one, what
  // an interrupted creation left is removed and the caller creates it (a
  // log without a snapshot is refused, as by inspect()).
  bool exists() const {
    const Listing files = list();
    if (files.snapshot) return true;
    remove_leftovers(without_snapshot(files));
    return false;
  }

  // The log file an engine opened on this directory writes until its first
  // checkpoint (in the directory held, whatever its path names now).
  io::FileAt pending_log_path() const { return at(kPendingLog); }
  u64 generation() const { return generation_; }
  const std::string& dir() const { return dir_; }
  // The descriptor of the directory held (and locked): the directory's
  // identity (fstat) for callers that must keep their own files out of it.
  int dir_fd() const { return lock_fd_; }

  template <class E>
  void checkpoint(E& engine) {
    static_assert(E::StackType::DiskLog::kFlushes, "a durable database needs a log flushed at commit");
    if (database_id_ == 0) database_id_ = new_database_id();
    const LogFileTag next{database_id_, generation_ + 1};
    write_snapshot(engine, at(kSnapshotTmp), next);
    engine.log().switch_file(at(log_name(next.generation)), next);
    sync_directory(lock_fd_, dir_);
    if (::renameat(lock_fd_, kSnapshotTmp, lock_fd_, kSnapshot) != 0) throw io_error(at(kSnapshot).shown, "rename");
    sync_directory(lock_fd_, dir_);
    if (generation_ > 0) ::unlinkat(lock_fd_, log_name(generation_).c_str(), 0);
    ::unlinkat(lock_fd_, kPendingLog, 0);
    generation_ = next.generation;
  }

  // Rebuilds the database that inspect() found (and checked) in `engine`
  // (fresh, its tables created and empty): loads the snapshot, replays the
  // log, checkpoints. Call remove_leftovers() first.
  template <class E>
  ReplayStats recover(E& engine, Inspection found) {
    RidMap rids;
    load_snapshot(engine, found.snapshot, at(kSnapshot).shown, rids);
    std::vector<std::byte>().swap(found.snapshot);  // loaded: its memory is not needed during the replay
    database_id_ = found.tag.database_id;
    generation_ = found.tag.generation;
    const ReplayStats stats = Replay<E>(engine, rids).run(found.log);
    checkpoint(engine);
    return stats;
  }

  // inspect(), remove_leftovers() and recover() on an engine already made
  // (its log.pending, already written, stays).
  template <class E>
  ReplayStats open(E& engine) {
    Inspection found = inspect(table_layout(engine));
    if (!found.database) throw Refused("database directory '" + dir_ + "' holds no snapshot");
    std::erase(found.leftovers, std::string(kPendingLog));
    remove_leftovers(found);
    return recover(engine, std::move(found));
  }

 private:
  struct Listing {
    bool snapshot = false;
    bool snapshot_tmp = false;
    bool pending_log = false;
    std::vector<u64> logs;  // generations of log.<g>, ascending
  };

  Listing list() const {
    Listing listing;
    // A descriptor of its own (fdopendir takes it over) on the directory held.
    const int fd = ::openat(lock_fd_, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) throw io_error(dir_, "open directory");
    DIR* d = ::fdopendir(fd);
    if (!d) {
      ::close(fd);
      throw io_error(dir_, "opendir");
    }
    while (const dirent* e = ::readdir(d)) {
      const std::string name = e->d_name;
      if (name == "snapshot") listing.snapshot = true;
      if (name == "snapshot.tmp") listing.snapshot_tmp = true;
      if (name == "log.pending") listing.pending_log = true;
      if (name.size() > 4 && name.compare(0, 4, "log.") == 0 &&
          name.find_first_not_of("0123456789", 4) == std::string::npos && name.size() <= 4 + 19)
        listing.logs.push_back(std::stoull(name.substr(4)));
    }
    ::closedir(d);
    std::sort(listing.logs.begin(), listing.logs.end());
    return listing;
  }

  // What is left over whatever the directory holds (snapshot.tmp); without
  // a snapshot, the logs of an interrupted creation too, and any other log
  // is refused. (log.pending: see inspect().)
  Inspection without_snapshot(const Listing& files) const {
    Inspection found;
    if (files.snapshot_tmp) found.leftovers.push_back(kSnapshotTmp);
    if (files.snapshot) return found;
    const bool interrupted_creation =
        files.logs.empty() || (files.logs == std::vector<u64>{1} && files.snapshot_tmp && holds_no_records(log_name(1)));
    if (!interrupted_creation) {
      std::string names;
      for (u64 g : files.logs) names += (names.empty() ? "log." : ", log.") + std::to_string(g);
      throw Refused("database directory '" + dir_ + "' holds " + names +
                    " but no snapshot: refusing to create a new database over them (restore the snapshot, or "
                    "empty the directory to start afresh)");
    }
    for (u64 g : files.logs) found.leftovers.push_back(log_name(g));
    return found;
  }

  bool holds_no_records(const std::string& name) const {
    struct stat st{};
    return ::fstatat(lock_fd_, name.c_str(), &st, 0) == 0 && static_cast<u64>(st.st_size) <= sizeof(LogFileHeader);
  }

  void remove_file(const std::string& name) const {
    if (::unlinkat(lock_fd_, name.c_str(), 0) != 0 && errno != ENOENT) throw io_error(at(name).shown, "unlink");
  }

  static u64 new_database_id() {
    std::random_device device;
    u64 id = 0;
    while (id == 0) id = (u64{device()} << 32) ^ device();
    return id;
  }

  static constexpr const char* kSnapshot = "snapshot";
  static constexpr const char* kSnapshotTmp = "snapshot.tmp";
  static constexpr const char* kPendingLog = "log.pending";
  static std::string log_name(u64 generation) { return "log." + std::to_string(generation); }
  // A file in the directory held, named in messages by the path given.
  io::FileAt at(const std::string& name) const { return io::FileAt(lock_fd_, name, dir_ + "/" + name); }

  std::string dir_;
  int lock_fd_ = -1;
  u64 database_id_ = 0;
  u64 generation_ = 0;
};

}  // namespace dbrepro::recovery
