#include "cache/trace_file.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <unordered_map>

namespace dbrepro::cache {

namespace {

#pragma pack(push, 1)
struct OracleGeneralRecord {
  u32 time;
  u64 obj_id;
  u32 obj_size;
  i64 next_access_vtime;
};
#pragma pack(pop)
static_assert(sizeof(OracleGeneralRecord) == 24);

[[noreturn]] void io_error(const std::string& what, const std::string& path) {
  throw std::runtime_error("trace: cannot " + what + " '" + path + "': " + std::strerror(errno));
}

}  // namespace

TraceFormat parse_trace_format(const std::string& name) {
  if (name == "txt") return TraceFormat::kPlainText;
  if (name == "oracle_general") return TraceFormat::kOracleGeneral;
  throw std::invalid_argument("trace_format: invalid value '" + name + "' (allowed: txt, oracle_general)");
}

void write_trace(const std::string& path, std::span<const u64> ids, TraceFormat format, u32 page_size) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) io_error("create", path);
  if (format == TraceFormat::kPlainText) {
    for (const u64 id : ids) out << id << '\n';
  } else {
    // The next access of each request, found walking backwards.
    std::vector<i64> next(ids.size());
    std::unordered_map<u64, i64> seen;
    for (size_t i = ids.size(); i-- > 0;) {
      auto it = seen.find(ids[i]);
      next[i] = it == seen.end() ? -1 : it->second;
      seen[ids[i]] = static_cast<i64>(i);
    }
    for (size_t i = 0; i < ids.size(); ++i) {
      const OracleGeneralRecord r{static_cast<u32>(i), ids[i], page_size, next[i]};
      out.write(reinterpret_cast<const char*>(&r), sizeof(r));
    }
  }
  out.flush();
  if (!out) io_error("write", path);
}

std::vector<u64> read_trace(const std::string& path, TraceFormat format) {
  std::ifstream in(path, std::ios::binary);
  if (!in) io_error("open", path);
  std::vector<u64> ids;
  if (format == TraceFormat::kPlainText) {
    u64 id;
    while (in >> id) ids.push_back(id);
  } else {
    OracleGeneralRecord r;
    // Copy the packed (misaligned) field first: push_back takes a reference,
    // and a reference to a misaligned u64 is undefined behaviour (UBSan).
    while (in.read(reinterpret_cast<char*>(&r), sizeof(r))) ids.push_back(u64{r.obj_id});
  }
  return ids;
}

}  // namespace dbrepro::cache
