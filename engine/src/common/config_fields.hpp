#pragma once
// A settings table: each field of a config struct with its name, type and
// meaning, how to set it from a front end's value (its range checked, the
// error naming the field) and how to read it back. TPC-C's RunConfig
// (driver/tpcc/fields.hpp), E1's CountConfig (driver/looking_glass/fields.hpp),
// E2's KeyCacheRunConfig
// (driver/key_cache/fields.hpp), E3's LadderConfig
// (driver/openedge/fields.hpp) and E4's SessionsRunConfig
// (driver/quantum/fields.hpp) are described this way, so the Python binding,
// the command lines and the docs read one table instead of restating it.
#include <limits>
#include <map>
#include <span>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include "common/types.hpp"

namespace dbrepro::config {

enum class FieldType : u8 { kBool, kUnsigned, kFloat, kText, kMix, kUnsignedList };

// What a front end hands over: integers arrive as unsigned with a sign flag
// so that the whole u64 range and negative values both get a clear message.
struct FieldInteger {
  u64 magnitude = 0;
  bool negative = false;
};
using FieldValue = std::variant<bool, FieldInteger, double, std::string, std::map<std::string, double>,
                                std::vector<FieldInteger>>;

// unit and range are what a reader is told (`dbrepro run STUDY --help`, the
// config schema's descriptions); the range is enforced by `set` and by the
// config's validate(), and tests/test_settings_tables.py checks that a value
// just outside each stated range is refused, naming the field.
template <class Config>
struct Field {
  const char* name;
  FieldType type;
  const char* unit;   // "" when the value has none
  const char* range;  // "lo..hi", ">= n", "> x", "(0, 1]", "a, b, c" or prose; "" when any value of the type
  const char* help;
  void (*set)(Config& config, const FieldValue& value);  // throws std::invalid_argument naming the field
  FieldValue (*get)(const Config& config);
};

inline const char* field_type_name(FieldType type) {
  switch (type) {
    case FieldType::kBool: return "bool";
    case FieldType::kUnsigned: return "int";
    case FieldType::kFloat: return "float";
    case FieldType::kText: return "str";
    case FieldType::kMix: return "mix";
    case FieldType::kUnsignedList: return "int list";
  }
  return "?";
}

// The field of that name; throws std::invalid_argument naming the allowed names.
template <class Config>
const Field<Config>& find_field(std::span<const Field<Config>> fields, const std::string& name) {
  for (const Field<Config>& f : fields)
    if (name == f.name) return f;
  std::string allowed;
  for (const Field<Config>& f : fields) allowed += (allowed.empty() ? "" : ", ") + std::string(f.name);
  throw std::invalid_argument(name + ": unknown setting (allowed: " + allowed + ")");
}

// ---- reading a value as the field's type, errors naming the field --------

[[noreturn]] inline void wrong_type(const char* name, const char* expected) {
  throw std::invalid_argument(std::string(name) + ": must be " + expected);
}

template <class T>
T unsigned_in(const char* name, const FieldInteger& n, u64 lo, u64 hi) {
  if (n.negative || n.magnitude < lo || n.magnitude > hi)
    throw std::invalid_argument(std::string(name) + ": must be in " + std::to_string(lo) + ".." + std::to_string(hi) +
                                ", got " + (n.negative ? "-" : "") + std::to_string(n.magnitude));
  return static_cast<T>(n.magnitude);
}

// The largest count or seed a record keeps: records are read back into
// signed 64-bit columns (pandas), so a setting beyond it is refused by name.
inline constexpr u64 kRecordIntegerMax = static_cast<u64>(std::numeric_limits<i64>::max());

// An unsigned T in lo..hi (T's whole range by default).
template <class T>
T unsigned_of(const char* name, const FieldValue& value, u64 lo = 0, u64 hi = std::numeric_limits<T>::max()) {
  const auto* n = std::get_if<FieldInteger>(&value);
  if (n == nullptr) wrong_type(name, "an integer");
  return unsigned_in<T>(name, *n, lo, hi);
}

// A non-empty list of unsigned T, each in lo..hi.
template <class T>
std::vector<T> unsigned_list_of(const char* name, const FieldValue& value, u64 lo = 0,
                                u64 hi = std::numeric_limits<T>::max()) {
  const auto* list = std::get_if<std::vector<FieldInteger>>(&value);
  if (list == nullptr) wrong_type(name, "a list of integers");
  if (list->empty()) wrong_type(name, "a non-empty list of integers");
  std::vector<T> out;
  for (const FieldInteger& n : *list) out.push_back(unsigned_in<T>(name, n, lo, hi));
  return out;
}

inline double float_of(const char* name, const FieldValue& value) {
  if (const auto* d = std::get_if<double>(&value)) return *d;
  if (const auto* n = std::get_if<FieldInteger>(&value))
    return n->negative ? -static_cast<double>(n->magnitude) : static_cast<double>(n->magnitude);
  wrong_type(name, "a number");
}

inline const std::string& text_of(const char* name, const FieldValue& value) {
  const auto* s = std::get_if<std::string>(&value);
  if (s == nullptr) wrong_type(name, "a string");
  return *s;
}

inline bool bool_of(const char* name, const FieldValue& value) {
  const auto* b = std::get_if<bool>(&value);
  if (b == nullptr) wrong_type(name, "True or False");
  return *b;
}

inline FieldValue integer(u64 v) { return FieldInteger{v, false}; }

template <class T>
FieldValue integer_list(const std::vector<T>& values) {
  std::vector<FieldInteger> out;
  for (T v : values) out.push_back(FieldInteger{static_cast<u64>(v), false});
  return out;
}

}  // namespace dbrepro::config
