#include "cache/trace_file.hpp"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <string_view>
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

std::string_view trimmed(std::string_view s) {
  const auto space = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  return s;
}

// The field as libCacheSim's strtoull(s, &end, 0) reads it, if that reads all of it.
std::optional<u64> parse_id(std::string_view field) {
  field = trimmed(field);
  if (field.empty() || field.front() == '-' || field.front() == '+') return std::nullopt;
  const std::string text(field);
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(text.c_str(), &end, 0);
  if (errno == ERANGE || end != text.c_str() + text.size()) return std::nullopt;
  return static_cast<u64>(v);
}

[[noreturn]] void line_error(const std::string& path, u64 line, std::string_view text, const char* expected) {
  std::string shown(trimmed(text).substr(0, 60));
  throw std::runtime_error("trace '" + path + "' line " + std::to_string(line) + ": '" + shown + "' is not " +
                           expected);
}

std::vector<u64> read_lines(const std::string& path, std::ifstream& in, TraceFormat format) {
  std::vector<u64> ids;
  std::string line;
  for (u64 n = 1; std::getline(in, line); ++n) {
    if (trimmed(line).empty()) continue;  // libCacheSim skips blank lines
    if (format == TraceFormat::kPlainText) {
      const auto id = parse_id(line);
      if (!id) line_error(path, n, line, "a page id (txt: one unsigned integer per line; a csv trace is format 'csv')");
      ids.push_back(*id);
    } else {
      const std::string_view whole(line);
      const auto id = parse_id(whole.substr(0, whole.find(',')));
      if (!id) {
        if (n == 1) continue;  // the header
        line_error(path, n, line, "a page id in field 1 (csv: id[,size...]; only line 1 may be a header)");
      }
      ids.push_back(*id);
    }
  }
  if (in.bad()) io_error("read", path);
  return ids;
}

}  // namespace

TraceFormat parse_trace_format(const std::string& name) {
  for (size_t i = 0; i < kTraceFormatNames.size(); ++i)
    if (name == kTraceFormatNames[i]) return static_cast<TraceFormat>(i);
  std::string allowed;
  for (const char* n : kTraceFormatNames) allowed += (allowed.empty() ? "" : ", ") + std::string(n);
  throw std::invalid_argument("trace_format: invalid value '" + name + "' (allowed: " + allowed + ")");
}

void write_trace(const std::string& path, std::span<const u64> ids, TraceFormat format, u32 page_size) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) io_error("create", path);
  if (format == TraceFormat::kPlainText) {
    for (const u64 id : ids) out << id << '\n';
  } else if (format == TraceFormat::kCsv) {
    out << "obj_id,obj_size\n";
    for (const u64 id : ids) out << id << ',' << page_size << '\n';
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
  if (format != TraceFormat::kOracleGeneral) return read_lines(path, in, format);
  std::vector<u64> ids;
  OracleGeneralRecord r;
  // Copy the packed (misaligned) field first: push_back takes a reference,
  // and a reference to a misaligned u64 is undefined behaviour (UBSan).
  while (in.read(reinterpret_cast<char*>(&r), sizeof(r))) ids.push_back(u64{r.obj_id});
  if (in.gcount() != 0)
    throw std::runtime_error("trace '" + path + "': " + std::to_string(in.gcount()) +
                             " bytes after the last whole 24-byte oracle_general record");
  return ids;
}

}  // namespace dbrepro::cache
