#pragma once
// Solaris's time-sharing (TS) dispatch table, ts_dptbl, as data: the default
// table that `dispadmin -c TS -g` prints (RES=1000: quanta in ms), as the
// ts_dptbl(4) manual page and the Solaris System Administration Guide
// ("Timesharing Parameter Table") give it; ../shared/field-notes.md holds the
// same table in ranges. Level 0 is the lowest, 59 the highest. Per level:
//   ts_quantum  the CPU time a thread runs at this level before its quantum expires (ms)
//   ts_tqexp    the level it drops to when it used a whole quantum
//   ts_slpret   the level it returns at when it wakes from sleep
//   ts_maxwait  seconds it may wait on the run queue before it is raised (counted once a second)
//   ts_lwait    the level it is raised to when it waited longer than ts_maxwait
// TsTimes turns a table into the times a run uses: the article's Q put in the
// levels a reading of "the quantum was set to Q" puts it in (TsReading, below:
// the article does not print its table or say how it set Q), and every
// dispatcher time (quanta, the one-second update, the clock tick) multiplied by
// one factor where a profile scales the study down.
#include <array>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>

#include "common/types.hpp"

namespace dbrepro::sched {

struct TsLevel {
  i32 quantum_ms;
  u8 tqexp;
  u8 slpret;
  i32 maxwait_s;
  u8 lwait;
};

inline constexpr u32 kTsLevels = 60;
using TsTable = std::array<TsLevel, kTsLevels>;

// clang-format off
inline constexpr TsTable kDefaultTsTable = {{
    // quantum tqexp slpret maxwait lwait   level
    {200,  0, 50,     0, 50},  //  0
    {200,  0, 50,     0, 50},  //  1
    {200,  0, 50,     0, 50},  //  2
    {200,  0, 50,     0, 50},  //  3
    {200,  0, 50,     0, 50},  //  4
    {200,  0, 50,     0, 50},  //  5
    {200,  0, 50,     0, 50},  //  6
    {200,  0, 50,     0, 50},  //  7
    {200,  0, 50,     0, 50},  //  8
    {200,  0, 50,     0, 50},  //  9
    {160,  0, 51,     0, 51},  // 10
    {160,  1, 51,     0, 51},  // 11
    {160,  2, 51,     0, 51},  // 12
    {160,  3, 51,     0, 51},  // 13
    {160,  4, 51,     0, 51},  // 14
    {160,  5, 51,     0, 51},  // 15
    {160,  6, 51,     0, 51},  // 16
    {160,  7, 51,     0, 51},  // 17
    {160,  8, 51,     0, 51},  // 18
    {160,  9, 51,     0, 51},  // 19
    {120, 10, 52,     0, 52},  // 20
    {120, 11, 52,     0, 52},  // 21
    {120, 12, 52,     0, 52},  // 22
    {120, 13, 52,     0, 52},  // 23
    {120, 14, 52,     0, 52},  // 24
    {120, 15, 52,     0, 52},  // 25
    {120, 16, 52,     0, 52},  // 26
    {120, 17, 52,     0, 52},  // 27
    {120, 18, 52,     0, 52},  // 28
    {120, 19, 52,     0, 52},  // 29
    { 80, 20, 53,     0, 53},  // 30
    { 80, 21, 53,     0, 53},  // 31
    { 80, 22, 53,     0, 53},  // 32
    { 80, 23, 53,     0, 53},  // 33
    { 80, 24, 53,     0, 53},  // 34
    { 80, 25, 54,     0, 54},  // 35
    { 80, 26, 54,     0, 54},  // 36
    { 80, 27, 54,     0, 54},  // 37
    { 80, 28, 54,     0, 54},  // 38
    { 80, 29, 54,     0, 54},  // 39
    { 40, 30, 55,     0, 55},  // 40
    { 40, 31, 55,     0, 55},  // 41
    { 40, 32, 55,     0, 55},  // 42
    { 40, 33, 55,     0, 55},  // 43
    { 40, 34, 55,     0, 55},  // 44
    { 40, 35, 56,     0, 56},  // 45
    { 40, 36, 57,     0, 57},  // 46
    { 40, 37, 58,     0, 58},  // 47
    { 40, 38, 58,     0, 58},  // 48
    { 40, 39, 58,     0, 59},  // 49
    { 40, 40, 58,     0, 59},  // 50
    { 40, 41, 58,     0, 59},  // 51
    { 40, 42, 58,     0, 59},  // 52
    { 40, 43, 58,     0, 59},  // 53
    { 40, 44, 58,     0, 59},  // 54
    { 40, 45, 58,     0, 59},  // 55
    { 40, 46, 58,     0, 59},  // 56
    { 40, 47, 58,     0, 59},  // 57
    { 40, 48, 58,     0, 59},  // 58
    { 20, 49, 59, 32000, 59},  // 59
}};
// clang-format on

// Solaris's clock: a TS thread's quantum is counted in ticks of 10 ms (hz = 100).
inline constexpr double kSolarisTickMs = 10.0;
// ts_update runs once a second.
inline constexpr double kTsUpdateMs = 1000.0;
// The level a thread enters TS at (ts_enterclass: the middle of the user range, 0..59).
inline constexpr u8 kTsEntryLevel = 29;

// The level a session's statement starts at when its server process wakes to
// read it (the article's sessions, issue 55): a process that sleeps between
// short bursts keeps ts_slpret of the levels it wakes from, 58 for levels
// 47-58 of the default table (59 wakes at 59, but only a thread already there).
inline constexpr u8 kTsWokenLevel = 58;

// A level that never raises a waiting thread: ts_update leaves it where it is.
inline constexpr i32 kTsNeverRaised = std::numeric_limits<i32>::max();

// A class at one priority (FX or RT as `priocntl -c FX|RT -m 0 -p 0 -t Q` sets
// a process): every level keeps its thread where it is -- an expired quantum
// requeues it at the back of its own level, no raise at the update, a wake at
// its own level -- so the threads of one level take turns of Q: round robin.
// The quantum is FX's default at its low priorities (200 ms), where no Q is given.
inline constexpr TsTable kOnePriorityTable = [] {
  TsTable t{};
  for (u32 l = 0; l < kTsLevels; ++l) {
    const auto level = static_cast<u8>(l);
    t[l] = {200, level, level, kTsNeverRaised, level};
  }
  return t;
}();

// How a class queues its runnable threads for the CPUs: Solaris gives TS and FX
// threads a queue per CPU (a thread stays where it ran unless its cache is
// cold or the queues are uneven: setbackdq, cpu_choose, disp_getwork in
// usr/src/uts/common/disp/disp.c); RT threads go on one queue every CPU takes
// from (the partition's kp queue, setkpdq).
enum class TsQueues : u8 { kPerCpu, kGlobal };

// A reading of the article's "the quantum was set to Q" (issue 55): which
// class ran the sessions, from which table, and in which of its levels Q
// replaced the table's ts_quantum (q_first..q_last).
struct TsReading {
  std::string_view name;
  std::string_view klass;  // the Solaris class: TS, FX or RT
  std::string_view what;
  const TsTable* table;
  u8 q_first, q_last;
  TsQueues queues;
};

// clang-format off
inline constexpr std::array<TsReading, 4> kTsReadings = {{
    {"all", "TS", "the default ts_dptbl with Q in every level's ts_quantum (dispadmin -c TS -s; our reading until issue 55)",
     &kDefaultTsTable, 0, 59, TsQueues::kPerCpu},
    {"low", "TS", "the default ts_dptbl with Q only in levels 0-9, where CPU-bound threads sink after their first "
     "expiries; the levels above as shipped", &kDefaultTsTable, 0, 9, TsQueues::kPerCpu},
    {"fx", "FX", "the fixed-priority class at one priority with time quantum Q (priocntl -c FX -t Q): round robin, "
     "no raise at the update", &kOnePriorityTable, 0, 59, TsQueues::kPerCpu},
    {"rt", "RT", "the real-time class at one priority with time quantum Q (priocntl -c RT -t Q): round robin, no "
     "raise, one queue every CPU takes from", &kOnePriorityTable, 0, 59, TsQueues::kGlobal},
}};
// clang-format on

inline const TsReading& ts_reading(std::string_view name) {
  for (const TsReading& r : kTsReadings)
    if (r.name == name) return r;
  std::string allowed;
  for (const TsReading& r : kTsReadings) allowed += (allowed.empty() ? "" : ", ") + std::string(r.name);
  throw std::invalid_argument("ts_reading: invalid choice '" + std::string(name) + "' (allowed: " + allowed + ")");
}

// The times of one run, in nanoseconds of the caller's clock.
struct TsTimes {
  std::array<i64, kTsLevels> quantum_ns{};
  i64 update_ns = 0;  // the once-a-second update
  i64 tick_ns = 0;    // how often the dispatcher looks at the threads' CPU time
};

// quantum_ms > 0: the ts_quantum of levels q_first..q_last is quantum_ms (the
// article's change of the table), the others the table's own; 0: the table's
// own quanta everywhere. scale multiplies every time.
inline TsTimes ts_times(const TsTable& table, double quantum_ms, double scale, u32 q_first = 0,
                        u32 q_last = kTsLevels - 1) {
  if (!(scale > 0)) throw std::invalid_argument("ts_time_scale: must be > 0");
  if (quantum_ms < 0) throw std::invalid_argument("quantum_ms: must be >= 0");
  const auto ns = [scale](double ms) { return static_cast<i64>(ms * scale * 1e6 + 0.5); };
  TsTimes t;
  for (u32 level = 0; level < kTsLevels; ++level) {
    const bool q_here = quantum_ms > 0 && level >= q_first && level <= q_last;
    t.quantum_ns[level] = ns(q_here ? quantum_ms : table[level].quantum_ms);
  }
  t.update_ns = ns(kTsUpdateMs);
  t.tick_ns = ns(kSolarisTickMs);
  if (t.tick_ns < 1) throw std::invalid_argument("ts_time_scale: the scaled clock tick is below 1 ns");
  return t;
}

inline TsTimes ts_times(const TsReading& reading, double quantum_ms, double scale) {
  return ts_times(*reading.table, quantum_ms, scale, reading.q_first, reading.q_last);
}

}  // namespace dbrepro::sched
