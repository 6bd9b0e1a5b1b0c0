#pragma once
// The server-side join: a nested loop of index cursors, one per level of the
// join, that yields only qualifying tuples. Each tuple goes out as the
// (level, record) entries not already sent with the previous tuple, so a
// record shared by several tuples crosses the network once.
#include <optional>
#include <vector>

#include "openedge/index_cursor.hpp"
#include "openedge/schema.hpp"

namespace dbrepro::openedge {

struct JoinEntry {
  u8 level;
  Record record;
};

template <class Access>
class JoinCursor {
 public:
  JoinCursor(BufferPool& pool, const Database& db, JoinSpec spec)
      : pool_(&pool), db_(&db), spec_(std::move(spec)), cursors_(spec_.steps.size()), path_(spec_.steps.size()) {}

  // Entries of whole tuples until at least `max` are appended; false once exhausted.
  bool next_batch(u32 max, std::vector<JoinEntry>& out, AccessCounters& counters) {
    const u32 last = static_cast<u32>(spec_.steps.size() - 1);
    u32 appended = 0;
    while (appended < max) {
      if (!next_tuple(counters)) return false;
      for (u32 level = unsent_from_; level <= last; ++level, ++appended)
        out.push_back({static_cast<u8>(level), path_[level]});
      unsent_from_ = last;
    }
    return true;
  }

 private:
  bool next_tuple(AccessCounters& counters) {
    const u32 last = static_cast<u32>(spec_.steps.size() - 1);
    if (done_) return false;
    if (!started_) {
      open(0, spec_.lo, spec_.hi);
      started_ = true;
    }
    u32 level = level_;
    for (;;) {
      if (cursors_[level]->next(path_[level], counters)) {
        unsent_from_ = std::min(unsent_from_, level);
        if (level == last) {
          level_ = level;
          return true;
        }
        ++level;
        const JoinStep& step = spec_.steps[level];
        const i64 value = value_of(path_[level - 1], static_cast<Column>(step.parent_column));
        open(level, value, value + 1);
      } else {
        cursors_[level].reset();
        if (level == 0) {
          done_ = true;
          return false;
        }
        --level;
      }
    }
  }

  void open(u32 level, i64 lo, i64 hi) {
    const JoinStep& step = spec_.steps[level];
    cursors_[level].emplace(*pool_, *db_, step.table, step.column, lo, hi);
  }

  BufferPool* pool_;
  const Database* db_;
  JoinSpec spec_;
  std::vector<std::optional<IndexCursor<Access>>> cursors_;
  std::vector<Record> path_;
  u32 level_ = 0;
  u32 unsent_from_ = 0;
  bool started_ = false;
  bool done_ = false;
};

}  // namespace dbrepro::openedge
