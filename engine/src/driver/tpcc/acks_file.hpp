#pragma once
// A durable run's acknowledgements (driver/tpcc/durable_run.hpp): a header
// line "# run <id> of database <16 hex digits>" naming the run and the
// database, then one line "<type> <stamp>\n" per commit that returned (N: a
// new order, P: a payment), each appended with one write(2), so a kill
// leaves only whole lines. Runs may append to one file: each starts with
// its own header, and every stamp under a header carries that run's id.
//
// Both ends are checked before the database directory is written:
// AcksWriter refuses a file inside the database directory (it would append
// to the database's own files, or be removed with them), one that is not a
// regular file (a FIFO, a device), one holding anything but
// acknowledgements, and one it cannot open or write its header to, each in
// one line naming the file (and the errno where a call failed). AcksFile
// reads a whole file and refuses what it cannot read, in one line naming
// the file and the line, so that a verifier never reports fewer
// acknowledgements than the file holds. It streams: a file larger than
// memory is read, not refused.
#include <functional>
#include <string>
#include <vector>

#include "common/types.hpp"
#include "tpcc/txn_types.hpp"

namespace dbrepro::tpcc {

struct Ack {
  char type = 'N';  // 'N' (new order) or 'P' (payment)
  u64 stamp = 0;
};

struct AcksHeader {
  u64 run_id = 0;
  u64 database_id = 0;
};

// The run id a commit stamp holds (terminal_clock_base,
// driver/tpcc/terminals.hpp: its top 24 bits; test_durable_run_ids.cpp
// checks the two agree).
constexpr u64 run_of_stamp(u64 stamp) { return stamp >> 40; }

// "# run 2 of database 00c0ffee00c0ffee\n"
std::string acks_header_line(const AcksHeader& header);
// A database id as the header writes it (16 lower-case hex digits).
std::string database_id_text(u64 database_id);

// An acks file, checked whole when opened (std::invalid_argument, one line
// naming the file and, where one is at fault, the line: a file that cannot
// be opened or read, is not a regular file, holds an acknowledgement before
// any header, a stamp of another run than its header's, or a line other
// than a header, "N <stamp>" or "P <stamp>" (a stamp of up to 20 digits
// that fits in 64 bits), the last one included: a file must end with a
// newline). It stays open: for_each reads the same bytes again.
class AcksFile {
 public:
  explicit AcksFile(const std::string& path);
  ~AcksFile();
  AcksFile(const AcksFile&) = delete;
  AcksFile& operator=(const AcksFile&) = delete;
  AcksFile(AcksFile&& other) noexcept;

  // on_run at each header, on_ack for each acknowledgement after it.
  void for_each(const std::function<void(const AcksHeader&)>& on_run,
                const std::function<void(const Ack&)>& on_ack) const;
  const std::string& path() const { return path_; }
  u64 acks() const { return acks_; }

 private:
  std::string path_;
  int fd_ = -1;
  u64 size_ = 0;  // the bytes checked; for_each reads no more
  u64 acks_ = 0;
};

// Every acknowledgement of the file, in order (its headers checked, then left out).
std::vector<Ack> read_acks(const std::string& path);

class AcksWriter {
 public:
  // "" : nothing is written. `database_dir_fd`: the (locked) database
  // directory, which neither the file nor any directory above it may be;
  // `database_dir` names it in messages. Opens (creating) the file and
  // appends `header`'s line; refused as above (std::invalid_argument, one
  // line), a file it created is removed again.
  AcksWriter(const std::string& path, int database_dir_fd, const std::string& database_dir,
             const AcksHeader& header);
  ~AcksWriter();
  AcksWriter(const AcksWriter&) = delete;
  AcksWriter& operator=(const AcksWriter&) = delete;

  // One whole line, one write(2); throws std::runtime_error naming the
  // file and the errno where it fails.
  void ack(TxnType type, u64 stamp);

 private:
  std::string path_;
  int fd_ = -1;
};

}  // namespace dbrepro::tpcc
