#pragma once
// E3's schema: Table1..Table7 of the article's 7-table join. Every table has
// the same fixed-size record: its own key, the key of the row it belongs to
// (the `OF` relationship), and three Percent_P columns whose value equals the
// row's own key for P% of the rows and lies outside every key domain for the
// rest, so `T.Percent_P = parent key` finds a partner for P% of the parents.
#include <array>
#include <string>
#include <vector>

#include "common/types.hpp"

namespace dbrepro::openedge {

inline constexpr u32 kTables = 7;

enum class Column : u8 { kNumKey = 0, kOfKey = 1, kPercent100 = 2, kPercent75 = 3, kPercent50 = 4 };
inline constexpr u32 kColumns = 5;
inline constexpr u8 kNoColumn = 0xFF;  // the first join step has no parent column

struct Record {
  std::array<i64, kColumns> columns{};  // indexed by Column
  std::array<i64, 3> payload{};         // filler: the record is 64 bytes like a small OpenEdge row
};
static_assert(sizeof(Record) == 64);

inline i64 value_of(const Record& record, Column column) { return record.columns[static_cast<u8>(column)]; }
inline i64 num_key(const Record& record) { return value_of(record, Column::kNumKey); }

// Percent_P of column c: the share of rows whose value matches a key.
inline constexpr std::array<u32, kColumns> kMatchPercent{100, 100, 100, 75, 50};

// One level of a join: rows of `table` whose `column` equals the previous
// level's `parent_column` (the first level: whose column lies in [lo, hi)).
struct JoinStep {
  u8 table = 0;
  Column column = Column::kNumKey;
  u8 parent_column = kNoColumn;
};

struct JoinSpec {
  std::vector<JoinStep> steps;
  i64 lo = 0, hi = 0;  // the first level's range
};

inline constexpr u32 kMaxJoinSteps = 10;  // OpenEdge's server-side join limit

// FOR EACH T1, EACH T2 OF T1, EACH T3 WHERE T3.Percent_100 = T2.Num_key2,
// EACH T4 OF T3, EACH T5 WHERE T5.Percent_75 = T4.Num_Key4, EACH T6 OF T5,
// EACH T7 WHERE T7.Percent_50 = T6.Num_Key6 -- over T1 keys [lo, hi).
inline JoinSpec article_join(i64 lo, i64 hi) {
  constexpr u8 key = static_cast<u8>(Column::kNumKey);
  return JoinSpec{{{0, Column::kNumKey, kNoColumn},
                   {1, Column::kOfKey, key},
                   {2, Column::kPercent100, key},
                   {3, Column::kOfKey, key},
                   {4, Column::kPercent75, key},
                   {5, Column::kOfKey, key},
                   {6, Column::kPercent50, key}},
                  lo,
                  hi};
}

}  // namespace dbrepro::openedge
