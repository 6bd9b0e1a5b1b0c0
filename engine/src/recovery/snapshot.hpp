#pragma once
// A checkpoint's snapshot: every live row of every table (with the record id
// it had) and every index entry, written while no transaction runs. The
// snapshot and the log written after it (log.<generation>) are the database
// on disk; loading a snapshot rebuilds the tables of a fresh engine.
//
// Format (native byte order): magic, generation, table count; per table: id,
// row size, record count, (record id, row bytes) per record, entry count,
// (key, value) per index entry; end magic.
#include <string>

#include "recovery/file_io.hpp"
#include "recovery/rid_map.hpp"

namespace dbrepro::recovery {

inline constexpr u64 kSnapshotMagic = 0x31504E5352424444ull;  // "DDBRSNP1"
inline constexpr u64 kSnapshotEnd = 0x31444E4552424444ull;    // "DDBREND1"

template <class E>
void write_snapshot(E& engine, const std::string& path, u64 generation) {
  FileWriter out(path);
  out.put(kSnapshotMagic);
  out.put(generation);
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
// `rids` with each record's old id -> new id. Returns the generation.
template <class E>
u64 load_snapshot(E& engine, const std::string& path, RidMap& rids) {
  const std::vector<std::byte> bytes = read_whole_file(path);
  if (bytes.empty()) throw std::runtime_error(path + ": no snapshot (not a database directory?)");
  ByteReader in(bytes, path);
  if (in.get<u64>() != kSnapshotMagic) throw std::runtime_error(path + ": not a dbrepro snapshot");
  const u64 generation = in.get<u64>();
  const u32 tables = in.get<u32>();
  if (tables != engine.catalog().size())
    throw std::runtime_error(path + ": " + std::to_string(tables) + " tables, the engine has " +
                             std::to_string(engine.catalog().size()));
  for (u32 t = 0; t < tables; ++t) {
    const u16 id = in.get<u16>();
    auto& entry = engine.entry(id);
    const u32 row_size = in.get<u32>();
    if (row_size != entry.row_size)
      throw std::runtime_error(path + ": table " + entry.name + " has rows of " + std::to_string(row_size) +
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
  if (in.get<u64>() != kSnapshotEnd) throw std::runtime_error(path + ": snapshot does not end where it should");
  return generation;
}

}  // namespace dbrepro::recovery
