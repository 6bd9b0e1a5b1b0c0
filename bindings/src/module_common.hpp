#pragma once
// Shared by the extension's modules: range checks that name the parameter
// (they become Python ValueErrors), Python values read as a settings table's
// fields (common/config_fields.hpp), and the progress tick of a long run.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <limits>
#include <map>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "common/config_fields.hpp"
#include "common/types.hpp"

namespace dbrepro::bindings {

namespace py = pybind11;

// `value` as a T, if in lo..T's maximum; else invalid_argument naming `name`.
template <class T>
T in_range(const char* name, i64 value, i64 lo = 0) {
  if (value < lo || static_cast<u64>(value) > std::numeric_limits<T>::max())
    throw std::invalid_argument(std::string(name) + ": must be in " + std::to_string(lo) + ".." +
                                std::to_string(std::numeric_limits<T>::max()) + ", got " + std::to_string(value));
  return static_cast<T>(value);
}

// A Python int as a field's integer: any size (too large or negative ones
// are refused by the field, naming it); bool is not an integer here.
inline config::FieldInteger field_integer(const std::string& name, const py::handle& value) {
  if (py::isinstance<py::bool_>(value) || !py::isinstance<py::int_>(value))
    throw std::invalid_argument(name + ": must be an integer");
  const bool negative = value.cast<py::int_>() < py::int_(0);
  py::object magnitude = py::reinterpret_steal<py::object>(PyNumber_Absolute(value.ptr()));
  const unsigned long long n = PyLong_AsUnsignedLongLong(magnitude.ptr());
  if (n == static_cast<unsigned long long>(-1) && PyErr_Occurred()) {  // beyond 64 bits
    PyErr_Clear();
    throw std::invalid_argument(name + ": must fit in 64 bits, got " + py::str(value).cast<std::string>());
  }
  return config::FieldInteger{n, negative && n != 0};
}

// A Python value as the field's type (the field then checks its range).
template <class Field>
config::FieldValue field_value(const Field& field, const py::handle& value) {
  using config::FieldType;
  const std::string name = field.name;
  const bool is_bool = py::isinstance<py::bool_>(value);
  switch (field.type) {
    case FieldType::kBool:
      if (!is_bool) throw std::invalid_argument(name + ": must be True or False");
      return value.cast<bool>();
    case FieldType::kUnsigned:
      return field_integer(name, value);
    case FieldType::kFloat:
      if (is_bool || !(py::isinstance<py::int_>(value) || py::isinstance<py::float_>(value)))
        throw std::invalid_argument(name + ": must be a number");
      return value.cast<double>();
    case FieldType::kText:
      if (!py::isinstance<py::str>(value)) throw std::invalid_argument(name + ": must be a string");
      return value.cast<std::string>();
    case FieldType::kMix:
      try {
        return value.cast<std::map<std::string, double>>();
      } catch (const py::cast_error&) {
        throw std::invalid_argument(name + ": must be a mapping of transaction type to weight");
      }
    case FieldType::kUnsignedList: {
      if (py::isinstance<py::int_>(value) && !is_bool)  // one integer: a list of one
        return std::vector<config::FieldInteger>{field_integer(name, value)};
      if (py::isinstance<py::str>(value) || !py::isinstance<py::sequence>(value))
        throw std::invalid_argument(name + ": must be a list of integers");
      std::vector<config::FieldInteger> list;
      for (const py::handle item : value.cast<py::sequence>()) list.push_back(field_integer(name, item));
      return list;
    }
  }
  throw std::logic_error("field_value: unknown field type");
}

inline py::object field_to_python(const config::FieldValue& value) {
  return std::visit(
      [](const auto& v) -> py::object {
        using V = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<V, config::FieldInteger>) {
          return py::int_(v.magnitude);
        } else if constexpr (std::is_same_v<V, std::vector<config::FieldInteger>>) {
          py::list list;
          for (const auto& n : v) list.append(py::int_(n.magnitude));
          return list;
        } else {
          return py::cast(v);
        }
      },
      value);
}

// A config from keyword settings named as its table's fields, each set (and
// range checked) through the table; the rest keep their defaults. Where the
// caller takes a progress callback, `progress=` is handed back, not set.
template <class Config>
Config config_from(const char* function, std::span<const config::Field<Config>> fields, const py::args& args,
                   const py::kwargs& settings, py::object* progress = nullptr) {
  if (!args.empty()) throw std::invalid_argument(std::string(function) + ": settings are keyword arguments");
  Config c;
  for (const auto& [key, value] : settings) {
    const std::string name = py::cast<std::string>(key);
    if (progress != nullptr && name == "progress") {
      *progress = py::reinterpret_borrow<py::object>(value);
      continue;
    }
    const config::Field<Config>& field = config::find_field(fields, name);
    field.set(c, field_value(field, value));
  }
  return c;
}

// A config as Python reads it: each field of its table, name -> value.
template <class Config, class Fields>
py::dict config_to_python(const Fields& fields, const Config& config) {
  py::dict out;
  for (const auto& field : fields) out[field.name] = field_to_python(field.get(config));
  return out;
}

inline bool is_required(std::span<const char* const> required, const std::string& name) {
  for (const char* r : required)
    if (name == r) return true;
  return false;
}

// A settings table as Python reads it: name, type, unit, range, default, help
// and required per field (a required setting has no default).
template <class Config, class Fields>
py::list fields_table(const Fields& fields, std::span<const char* const> required = {}) {
  const Config defaults;
  py::list rows;
  for (const auto& f : fields) {
    const bool must_give = is_required(required, f.name);
    rows.append(py::dict(py::arg("name") = f.name, py::arg("type") = config::field_type_name(f.type),
                         py::arg("unit") = f.unit, py::arg("range") = f.range,
                         py::arg("default") = must_give ? py::none() : field_to_python(f.get(defaults)),
                         py::arg("help") = f.help, py::arg("required") = must_give));
  }
  return rows;
}

// One settings table's pair of functions: NAME(**settings), every setting
// checked by `check` (as a run checks them) with defaults filled in, and
// NAME_fields(), the table as Python reads it. `what` says whose settings;
// `required` names those a caller must give.
template <class Config, class Fields, class Check>
void def_config(py::module_& m, const std::string& name, const Fields& fields, Check check, const std::string& what,
                std::span<const char* const> required = {}) {
  m.def(
      name.c_str(),
      [name, fields, check, required](const py::args& args, const py::kwargs& settings) {
        for (const char* r : required)
          if (!settings.contains(r)) throw std::invalid_argument(std::string(r) + ": required");
        const Config config = config_from(name.c_str(), fields, args, settings);
        check(config);
        return config_to_python(fields, config);
      },
      (name + "(**settings): " + what + ", every setting checked as a run checks it, defaults filled in; "
       "ValueError names the first bad one.").c_str());
  m.def(
      (name + "_fields").c_str(), [fields, required] { return fields_table<Config>(fields, required); },
      ("The settings of " + what + ": name, type, unit, range, default, help, required.").c_str());
}

// The engine's one JSON serialisation of a result, as Python objects.
inline py::object parse_json(const std::string& text) { return py::module_::import("json").attr("loads")(text); }

// A progress callback for a run that releases the GIL: at each tick it takes
// the GIL, lets Python handle signals (Ctrl-C) and calls the user's callback
// (only an explicit False stops the run). A Python exception stops the run
// and waits in `pending`, to be rethrown once the engine has returned.
inline auto python_tick(const py::object& progress, std::optional<py::error_already_set>& pending) {
  return [&progress, &pending](u64 done, u64 total) {
    py::gil_scoped_acquire gil;
    try {
      if (PyErr_CheckSignals() != 0) throw py::error_already_set();
      if (!progress.is_none()) return progress(done, total).ptr() != Py_False;
      return true;
    } catch (py::error_already_set& e) {
      pending.emplace(std::move(e));
      return false;
    }
  };
}

}  // namespace dbrepro::bindings
