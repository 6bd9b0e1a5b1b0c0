#pragma once
// A database on disk: a directory holding the last checkpoint's snapshot and
// the log written since (log.<generation>), both naming the database (a
// random id chosen at creation) and the generation, so that a log that does
// not continue the snapshot is recognised. A lock file (flock, as SQLite
// and PostgreSQL's postmaster.pid keep a second server out) admits one
// process at a time.
//
//   checkpoint: (no transaction active) snapshot to snapshot.tmp, synced;
//               the log continues in a new file log.<g+1> (the old one is
//               flushed first); snapshot.tmp renamed over snapshot, the
//               directory synced; the old log removed. A crash at any point
//               leaves either the old snapshot with its complete log or the
//               new snapshot with its (empty) log, plus leftovers that the
//               next open removes (snapshot.tmp, an empty log.<g+1>, older
//               logs).
//   open:       load the snapshot into a fresh engine, redo and undo its log
//               (replay.hpp), then checkpoint: record ids are new, so the
//               log starts again against a snapshot that has them.
//
// Refused (file_io.hpp), never re-created or read around: a directory with
// a log but no snapshot (other than what an interrupted creation leaves), a
// damaged snapshot or log, a missing log, a log of another database or
// generation, and a directory another process has open.
//
// Only for stacks whose log is flushed at commit: with any other, a
// commit is not durable.
#include <dirent.h>
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

class DurableFiles {
 public:
  explicit DurableFiles(std::string dir) : dir_(std::move(dir)) {
    if (dir_.empty()) throw std::invalid_argument("database directory: empty path");
    struct stat st{};
    if (::stat(dir_.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
      throw std::invalid_argument("database directory '" + dir_ + "' does not exist or is not a directory");
    const std::string lock = dir_ + "/lock";
    lock_fd_ = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (lock_fd_ < 0) throw io_error(lock, "open");
    if (::flock(lock_fd_, LOCK_EX | LOCK_NB) != 0) {
      const int error = errno;
      ::close(lock_fd_);
      if (error == EWOULDBLOCK)
        throw Refused("database directory '" + dir_ + "' is in use by another process (it holds " + lock + ")");
      errno = error;
      throw io_error(lock, "flock");
    }
  }
  ~DurableFiles() { ::close(lock_fd_); }  // releases the lock
  DurableFiles(const DurableFiles&) = delete;
  DurableFiles& operator=(const DurableFiles&) = delete;

  // Whether the directory holds a database (a snapshot). Without one, only
  // what an interrupted creation leaves may be there (log.pending, and from
  // the first checkpoint snapshot.tmp with a log.1 holding no records): that
  // is removed and the caller creates the database. Any other log without a
  // snapshot is refused.
  bool exists() const {
    const Listing files = list();
    if (files.snapshot) return true;
    const bool interrupted_creation =
        files.logs.empty() || (files.logs == std::vector<u64>{1} && files.snapshot_tmp && holds_no_records(log_path(1)));
    if (!interrupted_creation) {
      std::string names;
      for (u64 g : files.logs) names += (names.empty() ? "log." : ", log.") + std::to_string(g);
      throw Refused("database directory '" + dir_ + "' holds " + names +
                    " but no snapshot: refusing to create a new database over them (restore the snapshot, or "
                    "empty the directory to start afresh)");
    }
    remove_file(dir_ + "/snapshot.tmp");
    if (!files.logs.empty()) remove_file(log_path(1));
    return false;
  }

  // The log file an engine opened on this directory writes until its first checkpoint.
  std::string pending_log_path() const { return dir_ + "/log.pending"; }
  u64 generation() const { return generation_; }
  const std::string& dir() const { return dir_; }

  template <class E>
  void checkpoint(E& engine) {
    static_assert(E::StackType::DiskLog::kFlushes, "a durable database needs a log flushed at commit");
    if (database_id_ == 0) database_id_ = new_database_id();
    const LogFileTag next{database_id_, generation_ + 1};
    write_snapshot(engine, dir_ + "/snapshot.tmp", next);
    engine.log().switch_file(log_path(next.generation), next);
    sync_directory(dir_);
    if (::rename((dir_ + "/snapshot.tmp").c_str(), snapshot_path().c_str()) != 0)
      throw io_error(snapshot_path(), "rename");
    sync_directory(dir_);
    if (generation_ > 0) ::unlink(log_path(generation_).c_str());
    ::unlink(pending_log_path().c_str());
    generation_ = next.generation;
  }

  // Rebuilds the database in `engine` (fresh, its tables created and empty).
  template <class E>
  ReplayStats open(E& engine) {
    RidMap rids;
    const LogFileTag tag = load_snapshot(engine, snapshot_path(), rids);
    database_id_ = tag.database_id;
    generation_ = tag.generation;
    remove_leftovers();
    const std::string log = log_path(generation_);
    if (!file_exists(log))
      throw Refused(log + ": missing; the snapshot (generation " + std::to_string(generation_) +
                    ") continues in it, and reading it as empty would lose every commit since that checkpoint");
    const LogImage image = read_log(log, tag);
    const ReplayStats stats = Replay<E>(engine, rids).run(image);
    checkpoint(engine);
    return stats;
  }

 private:
  struct Listing {
    bool snapshot = false;
    bool snapshot_tmp = false;
    std::vector<u64> logs;  // generations of log.<g>, ascending
  };

  Listing list() const {
    Listing listing;
    DIR* d = ::opendir(dir_.c_str());
    if (!d) throw io_error(dir_, "opendir");
    while (const dirent* e = ::readdir(d)) {
      const std::string name = e->d_name;
      if (name == "snapshot") listing.snapshot = true;
      if (name == "snapshot.tmp") listing.snapshot_tmp = true;
      if (name.size() > 4 && name.compare(0, 4, "log.") == 0 &&
          name.find_first_not_of("0123456789", 4) == std::string::npos && name.size() <= 4 + 19)
        listing.logs.push_back(std::stoull(name.substr(4)));
    }
    ::closedir(d);
    std::sort(listing.logs.begin(), listing.logs.end());
    return listing;
  }

  static bool holds_no_records(const std::string& path) {
    struct stat st{};
    return ::stat(path.c_str(), &st) == 0 && static_cast<u64>(st.st_size) <= sizeof(LogFileHeader);
  }

  static void remove_file(const std::string& path) {
    if (::unlink(path.c_str()) != 0 && errno != ENOENT) throw io_error(path, "unlink");
  }

  // After the snapshot of generation g loaded: what a crash or a failed
  // checkpoint left is removed (snapshot.tmp, logs older than g, a log.<g+1>
  // without records); a log that continues no checkpoint is refused first.
  void remove_leftovers() const {
    const Listing files = list();
    for (u64 g : files.logs)
      if (g > generation_ + 1 || (g == generation_ + 1 && !holds_no_records(log_path(g))))
        throw Refused(log_path(g) + ": a log newer than the snapshot (generation " + std::to_string(generation_) +
                      "): the log chain is broken (was the snapshot replaced by an older one?)");
    remove_file(dir_ + "/snapshot.tmp");
    for (u64 g : files.logs)
      if (g != generation_) remove_file(log_path(g));
    sync_directory(dir_);
  }

  static u64 new_database_id() {
    std::random_device device;
    u64 id = 0;
    while (id == 0) id = (u64{device()} << 32) ^ device();
    return id;
  }

  std::string snapshot_path() const { return dir_ + "/snapshot"; }
  std::string log_path(u64 generation) const { return dir_ + "/log." + std::to_string(generation); }

  std::string dir_;
  int lock_fd_ = -1;
  u64 database_id_ = 0;
  u64 generation_ = 0;
};

}  // namespace dbrepro::recovery
