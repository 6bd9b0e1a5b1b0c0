#include "openedge/database.hpp"

#include "buffer/page_guard.hpp"
#include "storage/page_store.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

namespace dbrepro::openedge {
namespace {

u64 mix(u64 x) {  // splitmix64's finaliser: a deterministic hash of (seed, table, column, key)
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

bool matches(u64 seed, u32 table, u32 column, i64 key) {
  const u64 h = mix(seed ^ mix((u64{table} << 8 | column) ^ mix(static_cast<u64>(key))));
  return h % 100 < kMatchPercent[column];
}

// Tables 2, 4, 6 (T2, T4, T6) are OF their predecessor: `fanout` rows per
// parent. The others hold one row per key of their predecessor's domain.
bool is_of_table(u32 table) { return table % 2 == 1; }

std::vector<Record> generate_rows(const DatabaseConfig& config, u32 table, u64 parent_rows) {
  const u64 rows = table == 0 ? config.rows : is_of_table(table) ? parent_rows * config.fanout : parent_rows;
  std::vector<Record> out(rows);
  for (u64 i = 0; i < rows; ++i) {
    Record& r = out[i];
    const i64 key = static_cast<i64>(i);
    r.columns[0] = key;
    r.columns[1] = is_of_table(table) ? static_cast<i64>(i / config.fanout) : key;
    for (u32 c = 2; c < kColumns; ++c) r.columns[c] = matches(config.seed, table, c, key) ? key : -(key + 1);
    r.payload = {static_cast<i64>(table), key * 31 + 7, static_cast<i64>(mix(i))};
  }
  return out;
}

// The database is built in memory, page ids in allocation order, then written to its file.
using BuildPages = DirectPages<NoLatching>;

struct IndexEntry {
  i64 value;
  u64 rid;
};

void write_table(Database& db, BuildPages& pages, u32 table, const std::vector<Record>& rows) {
  TableInfo& info = db.tables[table];
  info.rows = rows.size();
  std::vector<u64> rids(rows.size());
  for (u64 i = 0; i < rows.size(); i += kRecordsPerPage) {
    const u64 n = std::min<u64>(kRecordsPerPage, rows.size() - i);
    const PageId page = pages.allocate();
    std::memcpy(ExclusiveGuard<BuildPages>(pages, page).page(), &rows[i], n * sizeof(Record));
    info.data_pages.push_back(page);
    for (u64 s = 0; s < n; ++s) rids[i + s] = record_id(page, static_cast<u32>(s));
  }
  for (u32 c = 0; c < kColumns; ++c) {
    std::vector<IndexEntry> entries(rows.size());
    for (u64 i = 0; i < rows.size(); ++i) entries[i] = {rows[i].columns[c], rids[i]};
    std::sort(entries.begin(), entries.end(), [](const IndexEntry& a, const IndexEntry& b) {
      return a.value != b.value ? a.value < b.value : a.rid < b.rid;
    });
    IndexInfo& index = info.indexes[c];
    index.first_leaf = static_cast<PageId>(pages.page_count());
    std::vector<BulkEntry> sorted(entries.size());
    for (u64 i = 0; i < entries.size(); ++i) sorted[i] = {index_key(entries[i].value, entries[i].rid), entries[i].rid};
    index.tree = bulk_load(pages, sorted);
  }
}

}  // namespace

u64 Database::total_rows() const {
  u64 n = 0;
  for (const auto& t : tables) n += t.rows;
  return n;
}

void validate(const DatabaseConfig& config) {
  if (config.rows < 1 || config.rows > (u64{1} << 24))
    throw std::invalid_argument("rows: must be in 1..16777216, got " + std::to_string(config.rows));
  if (config.fanout < 1 || config.fanout > 8)
    throw std::invalid_argument("fanout: must be in 1..8, got " + std::to_string(config.fanout));
  const u64 largest = config.rows * config.fanout * config.fanout * config.fanout;  // Table7
  if (largest > (u64{1} << (kValueBits - 2)))
    throw std::invalid_argument("rows: Table7 would have rows * fanout^3 = " + std::to_string(largest) +
                                " rows, more than an index key holds (2^" + std::to_string(kValueBits - 2) + ")");
}

Database build_database(const DatabaseConfig& config) {
  validate(config);
  Database db;
  db.config = config;
  BuildPages pages(kPageBytes);
  u64 parent_rows = 0;
  for (u32 t = 0; t < kTables; ++t) {
    const auto rows = generate_rows(config, t, parent_rows);
    write_table(db, pages, t, rows);
    parent_rows = rows.size();
  }
  db.page_count = pages.page_count();
  if (db.page_count > (u64{1} << kPageBits))
    throw std::invalid_argument("rows: the database needs " + std::to_string(db.page_count) +
                                " pages, more than an index entry can address (2^" + std::to_string(kPageBits) + ")");
  db.file = std::make_unique<BlockFile>(BlockFile::temporary(config.data_dir, kPageBytes, /*want_direct=*/false));
  for (PageId p = 0; p < db.page_count; ++p) {
    db.file->write(p, SharedGuard<BuildPages>(pages, p).page());
  }
  return db;
}

}  // namespace dbrepro::openedge
