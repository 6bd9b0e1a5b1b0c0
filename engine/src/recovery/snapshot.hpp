#pragma once
// A checkpoint's snapshot: every live row of every table (with the record id
// it had) and every index entry, written while no transaction runs. The
// snapshot and the log written after it (log.<generation>) are the database
// on disk; loading a snapshot rebuilds the tables of a fresh engine.
//
// Format 3 (native byte order), in checksummed blocks (checked_blocks.hpp)
// after the magic "DDBRSNP3": database id, generation, the last run id
// (the largest any run on the database took, 0 before the first: a new run
// takes one past it, so no two runs' commit stamps are alike), table count;
// per table: id, row size, record count, (record id, row bytes) per record,
// entry count, (key, value) per index entry; end magic. Format 1 had no
// blocks and no database id, format 2 no run id; both are refused with a
// line that says so.
#include <string>
#include <vector>

#include "log/log_record.hpp"
#include "recovery/checked_blocks.hpp"
#include "recovery/rid_map.hpp"
#include "storage/record_id.hpp"

namespace dbrepro::recovery {

inline constexpr u64 kSnapshotMagicV1 = 0x31504E5352424444ull;  // "DDBRSNP1"
inline constexpr u64 kSnapshotMagicV2 = 0x32504E5352424444ull;  // "DDBRSNP2"
inline constexpr u64 kSnapshotMagic = 0x33504E5352424444ull;    // "DDBRSNP3"
inline constexpr u64 kSnapshotEnd = 0x32444E4552424444ull;      // "DDBREND2"

// What a snapshot says of its database besides the rows: the database and
// the generation whose log continues it, the last run id, and how many
// records each table holds (entry i: table i + 1), which sizes the engine
// that will load it.
struct SnapshotSummary {
  LogFileTag tag;
  u64 last_run_id = 0;
  std::vector<u64> records;
};

// `tag`: the database and the generation whose log continues this snapshot.
template <class E>
void write_snapshot(E& engine, const io::FileAt& file, const LogFileTag& tag, u64 last_run_id) {
  CheckedBlockWriter out(file, kSnapshotMagic);
  out.put(tag.database_id);
  out.put(tag.generation);
  out.put(last_run_id);
  out.put(static_cast<u32>(engine.catalog().size()));
  engine.catalog().for_each([&](const auto& entry) {
    out.put(entry.id);
    out.put(entry.row_size);
    out.put(entry.heap ? entry.heap->record_count() : u64{0});
    if (entry.heap) {
      entry.heap->for_each([&](RecordId rid, const std::byte* row) {
        out.put(rid.pack());
        out.put(row, entry.row_size);
      });
    }
    out.put(entry.index ? entry.index->size() : u64{0});
    if (entry.index) {
      for (auto cursor = entry.index->begin(); cursor.valid(); cursor.next()) {
        out.put(cursor.key());
        out.put(cursor.value());
      }
    }
  });
  out.put(kSnapshotEnd);
  out.finish();
}

// The tables a snapshot must hold, by catalog id (entry i is table i + 1):
// each table's name (for messages) and row size (0: index only).
struct TableShape {
  std::string name;
  u32 row_size = 0;
};
using TableLayout = std::vector<TableShape>;

// An engine's tables (its catalog's ids are 1, 2, ... in creation order).
template <class E>
TableLayout table_layout(E& engine) {
  TableLayout layout(engine.catalog().size());
  engine.catalog().for_each([&](const auto& entry) { layout.at(entry.id - 1) = TableShape{entry.name, entry.row_size}; });
  return layout;
}

// A snapshot file's bytes: its blocks, checked and joined (checked_blocks.hpp).
inline std::vector<std::byte> read_snapshot(const io::FileAt& file) {
  const std::string& path = file.shown;
  return read_checked_blocks(file, kSnapshotMagic, [&](u64 magic) {
    if (magic == kSnapshotMagicV1 || magic == kSnapshotMagicV2)
      throw Refused(path + (magic == kSnapshotMagicV1 ? ": a snapshot of format 1 (before checksums)"
                                                      : ": a snapshot of format 2 (before run ids)") +
                    "; this build reads format 3 only: open the database with the build that wrote it, or "
                    "create a new one");
    throw Refused(path + ": not a dbrepro snapshot (wrong magic at offset 0)");
  });
}

// Walks a snapshot's bytes: on_record(table id, old record id, row) per
// record, on_entry(table id, key, value) per index entry. Returns its
// summary. Throws Refused for tables other than
// `layout`'s or bytes that do not end where they should, so a walk with
// no-op callbacks checks a snapshot before anything is loaded or written.
template <class OnRecord, class OnEntry>
SnapshotSummary walk_snapshot(const std::vector<std::byte>& bytes, const std::string& path,
                              const TableLayout& layout, OnRecord&& on_record, OnEntry&& on_entry) {
  ByteReader in(bytes, path);
  SnapshotSummary summary;
  summary.tag.database_id = in.get<u64>();
  summary.tag.generation = in.get<u64>();
  summary.last_run_id = in.get<u64>();
  summary.records.assign(layout.size(), 0);
  const u32 tables = in.get<u32>();
  if (tables != layout.size())
    throw Refused(path + ": " + std::to_string(tables) + " tables, the engine has " + std::to_string(layout.size()));
  for (u32 t = 0; t < tables; ++t) {
    const u16 id = in.get<u16>();
    if (id == 0 || id > layout.size()) throw Refused(path + ": table id " + std::to_string(id) + " is not the engine's");
    const TableShape& shape = layout[id - 1];
    const u32 row_size = in.get<u32>();
    if (row_size != shape.row_size)
      throw Refused(path + ": table " + shape.name + " has rows of " + std::to_string(row_size) +
                    " bytes, the engine's have " + std::to_string(shape.row_size));
    const u64 records = in.get<u64>();
    if (records > 0 && row_size == 0) throw Refused(path + ": index " + shape.name + " holds rows");
    summary.records[id - 1] = records;
    for (u64 r = 0; r < records; ++r) {
      const u64 old_rid = in.get<u64>();
      on_record(id, old_rid, in.take(row_size));
    }
    const u64 entries = in.get<u64>();
    for (u64 i = 0; i < entries; ++i) {
      const u64 key = in.get<u64>();
      on_entry(id, key, in.get<u64>());
    }
  }
  if (in.get<u64>() != kSnapshotEnd || !in.at_end())
    throw Refused(path + ": snapshot does not end where it should");
  return summary;
}

// Checks a snapshot's bytes against `layout` without loading them.
inline SnapshotSummary check_snapshot(const std::vector<std::byte>& bytes, const std::string& path,
                                 const TableLayout& layout) {
  return walk_snapshot(bytes, path, layout, [](u16, u64, const std::byte*) {}, [](u16, u64, u64) {});
}

// Loads a snapshot's bytes into an engine whose tables exist and are empty;
// fills `rids` with each record's old id -> new id.
template <class E>
SnapshotSummary load_snapshot(E& engine, const std::vector<std::byte>& bytes, const std::string& path, RidMap& rids) {
  return walk_snapshot(
      bytes, path, table_layout(engine),
      [&](u16 id, u64 old_rid, const std::byte* row) {
        auto& entry = engine.entry(id);
        const RecordId rid = entry.heap->create(row, static_cast<u16>(entry.row_size));
        rids.set(id, old_rid, rid.pack());
      },
      [&](u16 id, u64 key, u64 value) {
        auto& entry = engine.entry(id);
        entry.index->insert(key, entry.heap ? rids.at(id, value) : value);
      });
}

}  // namespace dbrepro::recovery
