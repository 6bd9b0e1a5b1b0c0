#pragma once
// A durable run's acknowledgements: one line "<type> <stamp>\n" per commit
// that returned (N: a new order, P: a payment), appended with one write(2)
// each, so a kill leaves only whole lines (driver/tpcc/durable_run.hpp).
//
// Both ends are checked before the database directory is written:
// AcksWriter refuses a file inside the database directory (it would append
// to the database's own files, or be removed with them) and a file it
// cannot open; read_acks reads a whole file and refuses what it cannot
// read, in one line naming the file and the line, so that a verifier never
// reports fewer acknowledgements than the file holds.
#include <string>
#include <vector>

#include "common/types.hpp"
#include "tpcc/txn_types.hpp"

namespace dbrepro::tpcc {

struct Ack {
  char type = 'N';  // 'N' (new order) or 'P' (payment)
  u64 stamp = 0;
};

// Every line of the file. Throws std::invalid_argument (one line naming the
// file, and the line where one is at fault) for a file that cannot be
// opened, is not a regular file (a directory), or holds a line other than
// "N <stamp>" or "P <stamp>" (a stamp of up to 20 digits that fits in 64
// bits), the last one included (a file must end with a newline).
std::vector<Ack> read_acks(const std::string& path);

class AcksWriter {
 public:
  // "" : nothing is written. `database_dir_fd`: the (locked) database
  // directory, which neither the file nor any directory above it may be;
  // `database_dir` names it in messages. Opens (creating) the file; throws
  // std::invalid_argument, one line, without creating it when refused.
  AcksWriter(const std::string& path, int database_dir_fd, const std::string& database_dir);
  ~AcksWriter();
  AcksWriter(const AcksWriter&) = delete;
  AcksWriter& operator=(const AcksWriter&) = delete;

  // One whole line, one write(2).
  void ack(TxnType type, u64 stamp);

 private:
  int fd_ = -1;
};

}  // namespace dbrepro::tpcc
