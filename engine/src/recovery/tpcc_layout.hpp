#pragma once
// The tables of a TPC-C database (tpcc/database.hpp) as an engine's catalog
// holds them (snapshot.hpp's TableLayout), known without making an engine:
// an engine writes its log file as it is made, and opening a directory
// checks the snapshot against these tables before anything is written.
#include "recovery/snapshot.hpp"
#include "tpcc/database.hpp"

namespace dbrepro::tpcc {

// Stands in for an engine: Database<TableLayoutProbe> names each table in
// Database's order, with the row size Engine::create_table gives it (none
// for an index-only table); ids are 1, 2, ... in that order.
// engine/tests/test_durable_holes.cpp checks it against a real engine.
struct TableLayoutProbe {
  template <class Row>
  struct Table {
    explicit Table(TableLayoutProbe& probe) {
      probe.layout.push_back({Row::kName, kIsIndexOnly<Row> ? 0u : static_cast<u32>(sizeof(Row))});
    }
  };
  recovery::TableLayout layout;
};

inline recovery::TableLayout database_layout() {
  TableLayoutProbe probe;
  const Database<TableLayoutProbe> db(probe);
  return probe.layout;
}

}  // namespace dbrepro::tpcc
