#include "driver/key_cache/fields.hpp"

#include <algorithm>
#include <array>
#include <limits>
#include <stdexcept>

namespace dbrepro::keycache_driver {

namespace {

using config::FieldType;
using config::FieldValue;
using config::float_of;
using config::integer;
using config::integer_list;
using config::text_of;
using config::unsigned_list_of;
using config::unsigned_of;

keycache::Replacement parse_replacement(const std::string& name) {
  if (name == "midpoint") return keycache::Replacement::kMidpoint;
  if (name == "lru") return keycache::Replacement::kLru;
  throw std::invalid_argument("replacement: must be midpoint or lru, got '" + name + "'");
}

const char* replacement_name(keycache::Replacement r) {
  return r == keycache::Replacement::kMidpoint ? "midpoint" : "lru";
}

std::vector<sysbench::KeyDistribution> parse_distributions(const std::string& text) {
  std::vector<sysbench::KeyDistribution> found;
  size_t at = 0;
  for (;;) {
    const size_t comma = text.find(',', at);
    const std::string name = text.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    const auto d = sysbench::parse_points_distribution(name);
    if (std::find(found.begin(), found.end(), d) != found.end())
      throw std::invalid_argument("distributions: '" + name + "' is listed twice");
    found.push_back(d);
    if (comma == std::string::npos) return found;
    at = comma + 1;
  }
}

std::string distributions_text(const std::vector<sysbench::KeyDistribution>& list) {
  std::string text;
  for (const auto d : list) text += (text.empty() ? "" : ",") + std::string(sysbench::distribution_name(d));
  return text;
}

const std::array<KeyCacheField, 16> kKeyCacheFields = {{
    {"table_dir", FieldType::kText, "", "a folder", "the folder holding the sbtest table (key_cache.build_table writes it)",
     [](KeyCacheRunConfig& c, const FieldValue& v) { c.table_dir = text_of("table_dir", v); },
     [](const KeyCacheRunConfig& c) { return FieldValue{c.table_dir}; }},
    {"segments", FieldType::kUnsignedList, "", "each 0..64, none twice", "key_cache_segments values (0: off), each run in turn in every cell",
     [](KeyCacheRunConfig& c, const FieldValue& v) { c.segments = unsigned_list_of<u32>("segments", v); },
     [](const KeyCacheRunConfig& c) { return integer_list(c.segments); }},
    {"repeat", FieldType::kUnsigned, "", ">= 1", "which repeat (1 on): the segments' order is rotated by repeat - 1",
     [](KeyCacheRunConfig& c, const FieldValue& v) { c.repeat = unsigned_of<u32>("repeat", v, 1); },
     [](const KeyCacheRunConfig& c) { return integer(c.repeat); }},
    {"mode", FieldType::kText, "", "client_server, client_server_in_process, direct", "client_server, client_server_in_process or direct",
     [](KeyCacheRunConfig& c, const FieldValue& v) { c.mode = text_of("mode", v); },
     [](const KeyCacheRunConfig& c) { return FieldValue{c.mode}; }},
    {"buffer_bytes", FieldType::kUnsigned, "bytes", ">= 0", "key_buffer_size (0: sized from index_fraction)",
     [](KeyCacheRunConfig& c, const FieldValue& v) { c.buffer_bytes = unsigned_of<u64>("buffer_bytes", v); },
     [](const KeyCacheRunConfig& c) { return integer(c.buffer_bytes); }},
    {"index_fraction", FieldType::kFloat, "", "(0, 1]", "with buffer_bytes 0: the share of the index the cache holds (1: all)",
     [](KeyCacheRunConfig& c, const FieldValue& v) { c.index_fraction = float_of("index_fraction", v); },
     [](const KeyCacheRunConfig& c) { return FieldValue{c.index_fraction}; }},
    {"division_limit", FieldType::kUnsigned, "%", "1..100", "key_cache_division_limit (100: plain LRU)",
     [](KeyCacheRunConfig& c, const FieldValue& v) {
       c.division_limit = unsigned_of<u32>("division_limit", v, 1, 100);
     },
     [](const KeyCacheRunConfig& c) { return integer(c.division_limit); }},
    {"age_threshold", FieldType::kUnsigned, "", ">= 100", "key_cache_age_threshold",
     [](KeyCacheRunConfig& c, const FieldValue& v) { c.age_threshold = unsigned_of<u32>("age_threshold", v, 100); },
     [](const KeyCacheRunConfig& c) { return integer(c.age_threshold); }},
    {"replacement", FieldType::kText, "", "midpoint, lru", "midpoint (MyISAM's) or lru",
     [](KeyCacheRunConfig& c, const FieldValue& v) { c.replacement = parse_replacement(text_of("replacement", v)); },
     [](const KeyCacheRunConfig& c) { return FieldValue{std::string(replacement_name(c.replacement))}; }},
    {"latch", FieldType::kText, "", "adaptive, futex, spin", "the segment mutex: adaptive (MariaDB's), futex or spin",
     [](KeyCacheRunConfig& c, const FieldValue& v) { c.latch = text_of("latch", v); },
     [](const KeyCacheRunConfig& c) { return FieldValue{c.latch}; }},
    {"threads", FieldType::kUnsignedList, "", "each 1..1024", "client thread counts (sysbench's --threads), one cell each",
     [](KeyCacheRunConfig& c, const FieldValue& v) { c.threads = unsigned_list_of<u32>("threads", v); },
     [](const KeyCacheRunConfig& c) { return integer_list(c.threads); }},
    {"points", FieldType::kUnsignedList, "", "each 1..10000", "P of select_random_points, one cell each",
     [](KeyCacheRunConfig& c, const FieldValue& v) { c.points = unsigned_list_of<u32>("points", v); },
     [](const KeyCacheRunConfig& c) { return integer_list(c.points); }},
    {"distributions", FieldType::kText, "", "special, uniform, comma-separated, none twice",
     "how each thread draws its points in its slice of the keys: special (sysbench's default), uniform, "
     "or both, comma-separated; one cell each",
     [](KeyCacheRunConfig& c, const FieldValue& v) { c.distributions = parse_distributions(text_of("distributions", v)); },
     [](const KeyCacheRunConfig& c) { return FieldValue{distributions_text(c.distributions)}; }},
    {"warmup_seconds", FieldType::kFloat, "s", ">= 0", "unmeasured warm-up of each run",
     [](KeyCacheRunConfig& c, const FieldValue& v) { c.warmup_seconds = float_of("warmup_seconds", v); },
     [](const KeyCacheRunConfig& c) { return FieldValue{c.warmup_seconds}; }},
    {"seconds", FieldType::kFloat, "s", "> 0", "the timed window of each run",
     [](KeyCacheRunConfig& c, const FieldValue& v) { c.seconds = float_of("seconds", v); },
     [](const KeyCacheRunConfig& c) { return FieldValue{c.seconds}; }},
    {"seed", FieldType::kUnsigned, "", ">= 0", "random seed of the queries",
     [](KeyCacheRunConfig& c, const FieldValue& v) { c.seed = unsigned_of<u64>("seed", v, 0, config::kRecordIntegerMax); },
     [](const KeyCacheRunConfig& c) { return integer(c.seed); }},
}};

}  // namespace

std::span<const KeyCacheField> key_cache_fields() { return kKeyCacheFields; }

}  // namespace dbrepro::keycache_driver
