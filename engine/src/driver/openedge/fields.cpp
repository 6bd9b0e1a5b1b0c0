#include "driver/openedge/fields.hpp"

#include <array>
#include <limits>

namespace dbrepro::openedge {

namespace {

using config::bool_of;
using config::FieldType;
using config::FieldValue;
using config::integer;
using config::integer_list;
using config::text_of;
using config::unsigned_list_of;
using config::unsigned_of;

using Workload = LadderConfig::Workload;

Workload parse_workload(const std::string& name) {
  if (name == "join") return Workload::kJoin;
  if (name == "scan") return Workload::kScan;
  throw std::invalid_argument("workload: must be join or scan, got '" + name + "'");
}

const char* workload_name(Workload w) { return w == Workload::kJoin ? "join" : "scan"; }

const std::array<LadderField, 20> kLadderFields = {{
    {"rows", FieldType::kUnsigned, "", "1..16777216", "rows of Table1",
     [](LadderConfig& c, const FieldValue& v) { c.database.rows = unsigned_of<u64>("rows", v); },
     [](const LadderConfig& c) { return integer(c.database.rows); }},
    {"fanout", FieldType::kUnsigned, "", "1..8", "rows of T2 per T1, T4 per T3, T6 per T5 (the OF relationships)",
     [](LadderConfig& c, const FieldValue& v) { c.database.fanout = unsigned_of<u32>("fanout", v); },
     [](const LadderConfig& c) { return integer(c.database.fanout); }},
    {"seed", FieldType::kUnsigned, "", ">= 0", "random seed of the tables' contents",
     // Up to 2^63-1, as every seed the Python API takes (records are read back into int64 columns).
     [](LadderConfig& c, const FieldValue& v) {
       c.database.seed = unsigned_of<u64>("seed", v, 0, std::numeric_limits<i64>::max());
     },
     [](const LadderConfig& c) { return integer(c.database.seed); }},
    {"servers", FieldType::kUnsigned, "", "1..64", "M servers",
     [](LadderConfig& c, const FieldValue& v) { c.servers = unsigned_of<u32>("servers", v); },
     [](const LadderConfig& c) { return integer(c.servers); }},
    {"users", FieldType::kUnsigned, "", "1..1024, servers..servers * max_clients", "U users, user u on server u mod M",
     [](LadderConfig& c, const FieldValue& v) { c.users = unsigned_of<u32>("users", v); },
     [](const LadderConfig& c) { return integer(c.users); }},
    {"max_clients", FieldType::kUnsigned, "", "1..1024", "users a server takes (-Ma; the article's 20)",
     [](LadderConfig& c, const FieldValue& v) { c.max_clients = unsigned_of<u32>("max_clients", v); },
     [](const LadderConfig& c) { return integer(c.max_clients); }},
    {"passes", FieldType::kUnsigned, "", "1..1000000", "times each user runs its join",
     [](LadderConfig& c, const FieldValue& v) { c.passes = unsigned_of<u32>("passes", v); },
     [](const LadderConfig& c) { return integer(c.passes); }},
    {"prefetch", FieldType::kUnsigned, "records", "1..10000", "records per message (-prefetchNumRecs)",
     [](LadderConfig& c, const FieldValue& v) { c.prefetch = unsigned_of<u32>("prefetch", v); },
     [](const LadderConfig& c) { return integer(c.prefetch); }},
    {"fixed_latches", FieldType::kUnsigned, "", "1..1048576", "the baseline's hash-table latches (OpenEdge 11.7's)",
     [](LadderConfig& c, const FieldValue& v) { c.fixed_latches = unsigned_of<u32>("fixed_latches", v); },
     [](const LadderConfig& c) { return integer(c.fixed_latches); }},
    {"latch_factor", FieldType::kUnsigned, "%", "5..100", "latches as % of hash buckets, step 1 on (-hashLatchFactor)",
     [](LadderConfig& c, const FieldValue& v) { c.latch_factor = unsigned_of<u32>("latch_factor", v); },
     [](const LadderConfig& c) { return integer(c.latch_factor); }},
    {"bucket_percent", FieldType::kUnsigned, "%", "1..1000", "hash buckets as % of buffer frames (-hash)",
     [](LadderConfig& c, const FieldValue& v) { c.bucket_percent = unsigned_of<u32>("bucket_percent", v); },
     [](const LadderConfig& c) { return integer(c.bucket_percent); }},
    {"spin", FieldType::kUnsigned, "", "0..10000000", "latch tries before a nap (-spin)",
     [](LadderConfig& c, const FieldValue& v) { c.spin_nap.spin = unsigned_of<u32>("spin", v); },
     [](const LadderConfig& c) { return integer(c.spin_nap.spin); }},
    {"nap", FieldType::kUnsigned, "ms", "1..10000", "first nap, ms (-nap)",
     [](LadderConfig& c, const FieldValue& v) { c.spin_nap.nap_ms = unsigned_of<u32>("nap", v); },
     [](const LadderConfig& c) { return integer(c.spin_nap.nap_ms); }},
    {"napmax", FieldType::kUnsigned, "ms", "nap..10000", "longest nap, ms (-napmax)",
     [](LadderConfig& c, const FieldValue& v) { c.spin_nap.napmax_ms = unsigned_of<u32>("napmax", v); },
     [](const LadderConfig& c) { return integer(c.spin_nap.napmax_ms); }},
    {"message_delay_us", FieldType::kUnsigned, "us", "0..1000000", "latency added to every client request, microseconds",
     [](LadderConfig& c, const FieldValue& v) { c.message_delay_us = unsigned_of<u32>("message_delay_us", v); },
     [](const LadderConfig& c) { return integer(c.message_delay_us); }},
    {"client_processes", FieldType::kBool, "", "", "users in client processes of their own (the article's), else threads",
     [](LadderConfig& c, const FieldValue& v) { c.client_processes = bool_of("client_processes", v); },
     [](const LadderConfig& c) { return FieldValue{c.client_processes}; }},
    {"workload", FieldType::kText, "", "join, scan", "join (the 7-table join) or scan (an index scan of each user's share of Table1)",
     [](LadderConfig& c, const FieldValue& v) { c.workload = parse_workload(text_of("workload", v)); },
     [](const LadderConfig& c) { return FieldValue{std::string(workload_name(c.workload))}; }},
    {"repeats", FieldType::kUnsigned, "", "1..1000", "interleaved repeats of the steps",
     [](LadderConfig& c, const FieldValue& v) { c.repeats = unsigned_of<u32>("repeats", v); },
     [](const LadderConfig& c) { return integer(c.repeats); }},
    {"steps", FieldType::kUnsignedList, "", "each 0..3", "ladder steps to run (0 baseline, 1 bht, 2 mtdbs, 3 ssj)",
     [](LadderConfig& c, const FieldValue& v) { c.steps = unsigned_list_of<u32>("steps", v); },
     [](const LadderConfig& c) { return integer_list(c.steps); }},
    {"address", FieldType::kText, "", "an IPv4 address", "address the servers listen on",
     [](LadderConfig& c, const FieldValue& v) { c.address = text_of("address", v); },
     [](const LadderConfig& c) { return FieldValue{c.address}; }},
}};

}  // namespace

std::span<const LadderField> ladder_fields() { return kLadderFields; }

}  // namespace dbrepro::openedge
