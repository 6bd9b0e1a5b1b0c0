#pragma once
// E3's database on "disk": every page of Table1..Table7 (data pages of
// records, and one sorted index per column) in a page store that the buffer
// pool reads from. Built deterministically from (rows, fanout, seed).
#include <array>
#include <cstddef>
#include <memory>
#include <vector>

#include "common/types.hpp"
#include "openedge/schema.hpp"

namespace dbrepro::openedge {

inline constexpr u32 kPageBytes = 8192;
using PageBytes = std::array<std::byte, kPageBytes>;

inline constexpr u32 kRecordsPerPage = kPageBytes / sizeof(Record);

// A record's place: page and slot, packed so an index entry is 16 bytes.
inline u64 record_id(PageId page, u32 slot) { return (u64{page} << 16) | slot; }
inline PageId rid_page(u64 rid) { return static_cast<PageId>(rid >> 16); }
inline u32 rid_slot(u64 rid) { return static_cast<u32>(rid & 0xFFFF); }

struct IndexEntry {
  i64 key;
  u64 rid;
};
// An index leaf: its entry count, then the entries in (key, rid) order.
struct IndexLeafHeader {
  u32 count;
  u32 pad[3];
};
inline constexpr u32 kEntriesPerLeaf = (kPageBytes - sizeof(IndexLeafHeader)) / sizeof(IndexEntry);

// The inner level of an index (first key of each leaf) stays in memory: the
// study is about the leaf and data blocks that every record access touches.
struct IndexInfo {
  std::vector<PageId> leaves;
  std::vector<i64> first_keys;
  u64 entries = 0;
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
};

struct Database {
  DatabaseConfig config;
  std::vector<std::unique_ptr<PageBytes>> pages;  // PageId = position
  std::array<TableInfo, kTables> tables;

  u64 total_rows() const;
};

void validate(const DatabaseConfig& config);
Database build_database(const DatabaseConfig& config);

// The page's bytes as a leaf / a record array (pages are 8-byte aligned).
inline const IndexLeafHeader& leaf_header(const PageBytes& page) {
  return *reinterpret_cast<const IndexLeafHeader*>(page.data());
}
inline const IndexEntry* leaf_entries(const PageBytes& page) {
  return reinterpret_cast<const IndexEntry*>(page.data() + sizeof(IndexLeafHeader));
}
inline const Record* page_records(const PageBytes& page) { return reinterpret_cast<const Record*>(page.data()); }

}  // namespace dbrepro::openedge
