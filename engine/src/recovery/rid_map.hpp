#pragma once
// Record ids change when a database is rebuilt from its files: heap records
// are created afresh. The map takes a record id of the run that wrote the
// files (in snapshots, log records and index values) to the rebuilt one.
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "common/types.hpp"
#include "recovery/file_io.hpp"

namespace dbrepro::recovery {

class RidMap {
 public:
  void set(u16 table, u64 old_rid, u64 new_rid) { map_[slot(table, old_rid)] = new_rid; }
  u64 at(u16 table, u64 old_rid) const {
    const auto it = map_.find(slot(table, old_rid));
    if (it == map_.end())
      throw Refused("recovery: table " + std::to_string(table) + " has no record " +
                               std::to_string(old_rid) + " (the log does not match the snapshot)");
    return it->second;
  }
  size_t size() const { return map_.size(); }

 private:
  static u64 slot(u16 table, u64 rid) { return (u64{table} << 48) ^ rid; }  // a packed rid has 48 bits
  std::unordered_map<u64, u64> map_;
};

}  // namespace dbrepro::recovery
