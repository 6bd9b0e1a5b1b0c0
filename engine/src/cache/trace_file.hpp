#pragma once
// Page-id reference strings on disk, in the formats libCacheSim reads:
//   txt: one id per line (PLAIN_TXT_TRACE with numeric ids); blank lines are
//        skipped, as libCacheSim skips them;
//   csv: libCacheSim's CSV_TRACE with the id in field 1 (obj_id_field=1),
//        fields split at ','; a first line whose id field is not a number is
//        a header (has_header); fields after the first are not read (our
//        writer puts the page size in field 2, obj_size_field=2);
//   oracle_general: packed 24-byte little-endian records
//        <u32 time, u64 obj_id, u32 obj_size, i64 next_access_vtime> (-1: never again).
// An id is what libCacheSim's strtoull(s, &end, 0) reads (decimal, 0x hex,
// a leading 0 octal), but the whole field must be the number: where
// libCacheSim would take a prefix ("2.5" as 2, "7,8192" in a txt trace as 7)
// or abort (a header in a txt trace), read_trace throws naming the file and
// the line, so a foreign trace never replays a different number of requests
// silently.
#include <array>
#include <span>
#include <string>
#include <vector>

#include "common/types.hpp"

namespace dbrepro::cache {

enum class TraceFormat { kPlainText, kCsv, kOracleGeneral };
inline constexpr std::array<const char*, 3> kTraceFormatNames = {"txt", "csv", "oracle_general"};

TraceFormat parse_trace_format(const std::string& name);  // one of kTraceFormatNames; throws std::invalid_argument
void write_trace(const std::string& path, std::span<const u64> ids, TraceFormat format, u32 page_size);
// Throws std::runtime_error "trace 'PATH' line N: ..." on a line it cannot read.
std::vector<u64> read_trace(const std::string& path, TraceFormat format);

}  // namespace dbrepro::cache
