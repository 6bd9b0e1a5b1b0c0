#include "driver/tpcc/durable_report.hpp"

namespace dbrepro::tpcc {

std::vector<RunAcks> check_acks(const std::vector<AcksFile>& files, const CommitStamps& stamps, u64 database_id) {
  std::vector<RunAcks> runs;
  for (const AcksFile& file : files) {
    file.for_each(
        [&](const AcksHeader& header) {
          RunAcks run;
          run.file = file.path();
          run.run = header;
          run.this_database = header.database_id == database_id;
          runs.push_back(run);
        },
        [&](const Ack& ack) {
          RunAcks& run = runs.back();  // AcksFile puts a header before any acknowledgement
          ++run.acknowledged;
          const auto& present = ack.type == 'N' ? stamps.new_orders : stamps.payments;
          if (run.this_database && present.contains(ack.stamp)) return;
          if (run.missing++ == 0) run.first_missing = std::string(1, ack.type) + " " + std::to_string(ack.stamp);
        });
  }
  return runs;
}

void write_open(JsonWriter& w, const recovery::ReplayStats& s, bool created) {
  w.key("open").begin_object();
  w.field("created", created)
      .field("log_records", s.records)
      .field("committed", s.committed)
      .field("aborted", s.aborted)
      .field("undone", s.undone)
      .field("undo_records", s.undo_records)
      .field("torn_bytes", s.torn_bytes);
  w.end_object();
}

void write_consistency(JsonWriter& w, const std::vector<ConsistencyCheck>& checks) {
  bool consistent = true;
  for (const auto& c : checks) consistent = consistent && c.passed;
  w.field("consistent", consistent);
  w.key("consistency").begin_array();
  for (const auto& c : checks) {
    w.begin_object();
    w.field("condition", c.condition).field("passed", c.passed).field("detail", c.detail);
    w.end_object();
  }
  w.end_array();
}

void write_acks(JsonWriter& w, const std::vector<RunAcks>& runs) {
  u64 acknowledged = 0, missing = 0;
  std::string first_missing;
  for (const RunAcks& run : runs) {
    acknowledged += run.acknowledged;
    if (first_missing.empty() && run.missing > 0)
      first_missing = run.first_missing + " in " + run.file + " (run " + std::to_string(run.run.run_id) + ")";
    missing += run.missing;
  }
  w.field("acknowledged", acknowledged).field("missing", missing).field("first_missing", first_missing);
  w.key("acks").begin_array();
  for (const RunAcks& run : runs) {
    w.begin_object();
    w.field("file", run.file)
        .field("run", run.run.run_id)
        .field("database", database_id_text(run.run.database_id))
        .field("this_database", run.this_database)
        .field("acknowledged", run.acknowledged)
        .field("missing", run.missing)
        .field("first_missing", run.first_missing);
    w.end_object();
  }
  w.end_array();
}

}  // namespace dbrepro::tpcc
