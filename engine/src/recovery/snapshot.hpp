#pragma once
// A checkpoint's snapshot: every live row of every table (with the record id
// it had) and every index entry, written while no transaction runs. The
// snapshot and the log written after it (log.<generation>) are the database
// on disk; loading a snapshot rebuilds the tables of a fresh engine.
//
// Format 2 (native byte order), in checksummed blocks (checked_blocks.hpp)
// after the magic "DDBRSNP2": database id, generation, table count; per
// table: id, row size, record count, (record id, row bytes) per record,
// entry count, (key, value) per index entry; end magic. Format 1 had no
// blocks and no database id; it is refused with a line that says so.
#include <string>

#include "log/log_record.hpp"
#include "recovery/checked_blocks.hpp"
#include "recovery/rid_map.hpp"

namespace dbrepro::recovery {

inline constexpr u64 kSnapshotMagicV1 = 0x31504E5352424444ull;  // "DDBRSNP1"
inline constexpr u64 kSnapshotMagic = 0x32504E5352424444ull;    // "DDBRSNP2"
inline constexpr u64 kSnapshotEnd = 0x32444E4552424444ull;      // "DDBREND2"

// `tag`: the database and the generation whose log continues this snapshot.
template <class E>
void write_snapshot(E& engine, const std::string& path, const LogFileTag& tag) {
  CheckedBlockWriter out(path, kSnapshotMagic);
  out.put(tag.database_id);
  out.put(tag.generation);
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

// Loads a snapshot into an engine whose tables exist and are empty; fills
// `rids` with each record's old id -> new id. Returns its database id and
// generation. Throws Refused for a damaged or foreign file.
template <class E>
LogFileTag load_snapshot(E& engine, const std::string& path, RidMap& rids) {
  const std::vector<std::byte> bytes = read_checked_blocks(path, kSnapshotMagic, [&](u64 magic) {
    if (magic == kSnapshotMagicV1)
      throw Refused(path + ": a snapshot of format 1 (before checksums); this build reads format 2 only: "
                    "open the database with the build that wrote it, or create a new one");
    throw Refused(path + ": not a dbrepro snapshot (wrong magic at offset 0)");
  });
  ByteReader in(bytes, path);
  LogFileTag tag;
  tag.database_id = in.get<u64>();
  tag.generation = in.get<u64>();
  const u32 tables = in.get<u32>();
  if (tables != engine.catalog().size())
    throw Refused(path + ": " + std::to_string(tables) + " tables, the engine has " +
                             std::to_string(engine.catalog().size()));
  for (u32 t = 0; t < tables; ++t) {
    const u16 id = in.get<u16>();
    auto& entry = engine.entry(id);
    const u32 row_size = in.get<u32>();
    if (row_size != entry.row_size)
      throw Refused(path + ": table " + entry.name + " has rows of " + std::to_string(row_size) +
                               " bytes, the engine's have " + std::to_string(entry.row_size));
    const u64 records = in.get<u64>();
    for (u64 r = 0; r < records; ++r) {
      const u64 old_rid = in.get<u64>();
      const RecordId rid = entry.heap->create(in.take(row_size), static_cast<u16>(row_size));
      rids.set(id, old_rid, rid.pack());
    }
    const u64 entries = in.get<u64>();
    for (u64 i = 0; i < entries; ++i) {
      const u64 key = in.get<u64>();
      const u64 value = in.get<u64>();
      entry.index->insert(key, entry.heap ? rids.at(id, value) : value);
    }
  }
  if (in.get<u64>() != kSnapshotEnd || !in.at_end())
    throw Refused(path + ": snapshot does not end where it should");
  return tag;
}

}  // namespace dbrepro::recovery
