#pragma once
// What `durable-run` and `recover` print (one JSON line each, through the
// one JSON writer, common/json_writer.hpp) and how `recover --acks` checks
// each acks file: every run's section of it against that run, in the
// database its header names.
#include <string>
#include <vector>

#include "common/json_writer.hpp"
#include "driver/tpcc/acks_file.hpp"
#include "recovery/replay.hpp"
#include "recovery/tpcc_stamps.hpp"
#include "tpcc/consistency_check.hpp"

namespace dbrepro::tpcc {

// One run's acknowledgements in one file, checked.
struct RunAcks {
  std::string file;
  AcksHeader run;
  bool this_database = false;  // the header names the database checked (else every ack counts as missing)
  u64 acknowledged = 0;
  u64 missing = 0;
  std::string first_missing;  // "N <stamp>"
};

// Reads each file again (AcksFile::for_each) and looks every stamp up.
std::vector<RunAcks> check_acks(const std::vector<AcksFile>& files, const CommitStamps& stamps, u64 database_id);

// "open": what opening found and did.
void write_open(JsonWriter& w, const recovery::ReplayStats& replay, bool created);
// "consistent" and "consistency": TPC-C's conditions.
void write_consistency(JsonWriter& w, const std::vector<ConsistencyCheck>& checks);
// "acknowledged", "missing", "first_missing" over every file, and "acks": each run's.
void write_acks(JsonWriter& w, const std::vector<RunAcks>& runs);

}  // namespace dbrepro::tpcc
