#pragma once
// Page-id reference strings on disk, in the two formats libCacheSim reads:
//   plain text: one id per line (PLAIN_TXT_TRACE);
//   oracleGeneral: packed 24-byte little-endian records
//     <u32 time, u64 obj_id, u32 obj_size, i64 next_access_vtime> (-1: never again).
#include <span>
#include <string>
#include <vector>

#include "common/types.hpp"

namespace dbrepro::cache {

enum class TraceFormat { kPlainText, kOracleGeneral };

TraceFormat parse_trace_format(const std::string& name);  // "txt" or "oracle_general"; throws std::invalid_argument
void write_trace(const std::string& path, std::span<const u64> ids, TraceFormat format, u32 page_size);
std::vector<u64> read_trace(const std::string& path, TraceFormat format);

}  // namespace dbrepro::cache
