#pragma once
// The one table of RunConfig's fields (a common/config_fields.hpp table):
// name, type, default and meaning, and how to set each from a front end's
// value with its range checked. The Python
// binding takes a run's settings by these names and sets them through the
// table (no positional list to keep in step); `_engine.run_config_fields()`
// exports it, and the Python API's parameter list comes from it.
#include <span>
#include <string>

#include "common/config_fields.hpp"
#include "driver/tpcc/run_config.hpp"

namespace dbrepro::tpcc {

using config::FieldInteger;
using config::FieldType;
using config::FieldValue;
using config::field_type_name;
using RunField = config::Field<RunConfig>;

std::span<const RunField> run_fields();

// The field of that name; throws std::invalid_argument naming the allowed names.
const RunField& find_run_field(const std::string& name);

}  // namespace dbrepro::tpcc
