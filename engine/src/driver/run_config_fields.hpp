#pragma once
// The one table of RunConfig's fields: name, type, default and meaning, and
// how to set each from a front end's value with its range checked. The Python
// binding takes a run's settings by these names and sets them through the
// table (no positional list to keep in step); `_engine.run_config_fields()`
// exports it, and the Python API's parameter list comes from it.
#include <map>
#include <span>
#include <string>
#include <variant>

#include "driver/run_config.hpp"

namespace dbrepro::tpcc {

enum class FieldType : u8 { kBool, kUnsigned, kFloat, kText, kMix };

// What a front end hands over: integers arrive as unsigned with a sign flag
// so that the whole u64 range and negative values both get a clear message.
struct FieldInteger {
  u64 magnitude = 0;
  bool negative = false;
};
using FieldValue = std::variant<bool, FieldInteger, double, std::string, std::map<std::string, double>>;

struct RunField {
  const char* name;
  FieldType type;
  const char* help;
  void (*set)(RunConfig& config, const FieldValue& value);  // throws std::invalid_argument naming the field
  FieldValue (*get)(const RunConfig& config);
};

std::span<const RunField> run_fields();
const char* field_type_name(FieldType type);  // "bool", "int", "float", "str", "mix"

// The field of that name; throws std::invalid_argument naming the allowed names.
const RunField& find_run_field(const std::string& name);

}  // namespace dbrepro::tpcc
