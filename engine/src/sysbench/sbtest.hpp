#pragma once
// sysbench's table sbtest(id PRIMARY KEY, k secondary index, c CHAR(120),
// pad CHAR(60)) as MyISAM stores it: fixed-length rows in a data file
// (sbtest.MYD, read with pread through the OS cache) and both indexes in one
// index file of blocks (sbtest.MYI, read through the key cache). Block 0 of
// the index file holds the table's metadata; each index is a B+tree of the
// engine's one B-tree (btree/), bulk-loaded after sorting, as MyISAM builds
// an index by sort: id -> row position, and (k, id) -> row position.
#include <string>

#include "btree/bulk_load.hpp"
#include "btree/key.hpp"
#include "common/types.hpp"
#include "io/block_file.hpp"
#include "sysbench/distribution.hpp"

namespace dbrepro::sysbench {

struct SbtestRow {
  u32 id;
  u32 k;
  char c[120];
  char pad[60];
};
static_assert(sizeof(SbtestRow) == 188);

struct SbtestMeta {
  u64 magic = 0;
  u64 rows = 0;
  u64 seed = 0;
  u32 block_size = 0;
  u32 index_blocks = 0;
  KeyDistribution distribution = KeyDistribution::kSpecial;  // of k (the points': a run's setting)
  u32 reserved = 0;
  BTreeShape k_index;   // key (k, id) -> row position
  BTreeShape id_index;  // key id -> row position
};

// The k index's key: k in the high 32 bits, id in the low (k is not unique).
inline const KeyLayout kKIndexLayout{32, 32};
inline PackedKey k_index_key(u32 k, u32 id) { return (PackedKey{k} << 32) | id; }

// Row `id` (1-based) as sysbench prepares it from `seed` (k = id with
// kIdentity, as the article's 0.5 script; else k in 1..rows drawn from
// `distribution`, as 1.0's oltp_common; c and pad groups of random digits
// separated by '-').
SbtestRow make_row(u64 id, u64 rows, u64 seed, KeyDistribution distribution);

// Writes sbtest.MYD and sbtest.MYI into `dir` (which must exist).
SbtestMeta build_sbtest(const std::string& dir, u64 rows, u64 seed, u32 block_size,
                        KeyDistribution distribution = KeyDistribution::kSpecial);

class SbtestTable {
 public:
  explicit SbtestTable(const std::string& dir);
  ~SbtestTable();
  SbtestTable(const SbtestTable&) = delete;
  SbtestTable& operator=(const SbtestTable&) = delete;

  const SbtestMeta& meta() const { return meta_; }
  const BlockFile& index_file() const { return index_; }
  void read_row(u32 position, SbtestRow* row) const;  // pread from the data file

  static constexpr u32 kIndexFileId = 1;  // the "file" of MariaDB's segment formula

 private:
  SbtestMeta meta_;
  BlockFile index_;
  int data_fd_ = -1;
};

}  // namespace dbrepro::sysbench
