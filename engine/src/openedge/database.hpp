#pragma once
// E3's database on disk: every page of Table1..Table7 (data pages of
// records, and one B-tree index per column: btree/, bulk-loaded) in a
// database file that the buffer pool (pool.hpp) reads with pread. Built
// deterministically from (rows, fanout, seed).
#include <algorithm>
#include <array>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "btree/bulk_load.hpp"
#include "btree/key.hpp"
#include "common/types.hpp"
#include "io/block_file.hpp"
#include "openedge/schema.hpp"

namespace dbrepro::openedge {

inline constexpr u32 kPageBytes = 8192;

inline constexpr u32 kRecordsPerPage = kPageBytes / sizeof(Record);

// A record's place: page and slot, packed so an index entry is 16 bytes.
inline u64 record_id(PageId page, u32 slot) { return (u64{page} << 16) | slot; }
inline PageId rid_page(u64 rid) { return static_cast<PageId>(rid >> 16); }
inline u32 rid_slot(u64 rid) { return static_cast<u32>(rid & 0xFFFF); }

// An index entry is (column value, record id), unique and ordered by value,
// then page, then slot, packed into the B-tree's 64-bit key; the value of
// the tree's entry is the record id.
inline constexpr int kValueBits = 32, kPageBits = 25, kSlotBits = 7;
inline constexpr i64 kValueOffset = i64{1} << (kValueBits - 1);  // values are signed
inline const KeyLayout kIndexKey{kValueBits, kPageBits, kSlotBits};
static_assert(kRecordsPerPage <= (1u << kSlotBits));
// The smallest key of an entry whose value is >= v (clamped to the field).
inline PackedKey index_key(i64 value) {
  const i64 v = std::clamp<i64>(value, -kValueOffset, kValueOffset - 1);
  return static_cast<PackedKey>(v + kValueOffset) << (kPageBits + kSlotBits);
}
inline PackedKey index_key(i64 value, u64 rid) {
  return index_key(value) | (u64{rid_page(rid)} << kSlotBits) | rid_slot(rid);
}
inline i64 index_value(PackedKey key) { return static_cast<i64>(key >> (kPageBits + kSlotBits)) - kValueOffset; }

// Where an index's B-tree is in the file.
struct IndexInfo {
  BTreeShape tree;
  PageId first_leaf = kInvalidPage;  // bulk load allocates the leaves first, left to right
};

struct TableInfo {
  u64 rows = 0;
  std::vector<PageId> data_pages;
  std::array<IndexInfo, kColumns> indexes;
};

struct DatabaseConfig {
  u64 rows = 1000;  // Table1's rows
  u32 fanout = 1;   // rows of T2 per T1 (and T4 per T3, T6 per T5): the OF relationships
  u64 seed = 1;
  std::string data_dir;  // where the database file goes ("": $TMPDIR or /tmp)
};

struct Database {
  DatabaseConfig config;
  std::unique_ptr<BlockFile> file;  // page p at offset p * kPageBytes; removed with the database
  u64 page_count = 0;
  std::array<TableInfo, kTables> tables;

  u64 total_rows() const;
};

void validate(const DatabaseConfig& config);
Database build_database(const DatabaseConfig& config);

// A data page's bytes as a record array (pages are 8-byte aligned).
inline const Record* page_records(const std::byte* page) { return reinterpret_cast<const Record*>(page); }

}  // namespace dbrepro::openedge
