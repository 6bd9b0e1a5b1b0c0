#pragma once
// A database directory's files as the durable tests read and write them by
// hand: every file's contents, leftovers that begin as the database would
// have written them (recovery/leftovers.hpp), the tables of
// recovery_test_db.hpp's database, the database id a snapshot holds; a
// small durable run's settings, and what a refusal says.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <stdexcept>
#include <string>

#include "driver/tpcc/durable_run.hpp"
#include "log/log_record.hpp"
#include "recovery/snapshot.hpp"
#include "recovery_test_db.hpp"

namespace dbrepro::tpcc::durable_test {

// Every file's name, size and contents.
inline std::map<std::string, std::string> tree(const std::string& dir) {
  std::map<std::string, std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    std::ifstream in(e.path(), std::ios::binary);
    files[e.path().filename()] = std::string(std::istreambuf_iterator<char>(in), {});
  }
  return files;
}

inline void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

inline std::string header_bytes(const LogFileTag& tag) {
  const LogFileHeader header = make_log_file_header(tag);
  return std::string(reinterpret_cast<const char*>(&header), sizeof(header));
}

inline std::string magic_bytes(u64 magic = recovery::kSnapshotMagic) {
  return std::string(reinterpret_cast<const char*>(&magic), sizeof(magic));
}

// The first `size` bytes of a snapshot of database `id` being written (a
// checkpoint the crash or a full disk cut short): the magic, the first
// block's length and checksum, the id, then filler.
inline std::string partial_snapshot(u64 id, size_t size) {
  std::string bytes = magic_bytes() + std::string(8, '\x01');
  bytes += std::string(reinterpret_cast<const char*>(&id), sizeof(id));
  bytes.resize(std::max(size, bytes.size()), 'x');
  return bytes;
}

// The tables of recovery_test's Tables, as an engine made elsewhere has them
// (making one writes its log file).
inline recovery::TableLayout tables_layout() {
  recovery_test::TempDir scratch;
  recovery::DurableFiles files(scratch.path);
  recovery_test::E engine(recovery_test::options_for(files));
  recovery_test::Tables t(engine);
  return recovery::table_layout(engine);
}

// The message of the std::invalid_argument `f` throws ("" if none).
template <class F>
std::string invalid_argument_of(F&& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

// A small durable run on `dir` (step1, 2 terminals, 60 transactions),
// appending to `acks` where one is given.
inline DurableRunConfig durable_config(const std::string& dir, const std::string& acks = "") {
  DurableRunConfig config;
  config.dir = dir;
  config.run.stack = "step1";
  config.run.terminals = 2;
  config.run.transactions = 60;
  if (!acks.empty()) config.acks_paths = {acks};
  return config;
}

// The database id a snapshot's first block begins with (after the magic
// and the block's length and checksum).
inline u64 database_id_of(const std::string& dir) {
  std::ifstream in(dir + "/snapshot", std::ios::binary);
  in.seekg(16);
  u64 id = 0;
  in.read(reinterpret_cast<char*>(&id), sizeof(id));
  return id;
}

}  // namespace dbrepro::tpcc::durable_test
