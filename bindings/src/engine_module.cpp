// dbrepro._engine: the engine's Python face. Inputs are converted while the
// GIL is held, the run itself releases it, and the result comes back through
// the engine's one JSON serialisation, parsed into a dict.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <limits>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <variant>

#include "module_common.hpp"
#include "driver/build_info.hpp"
#include "driver/result_json.hpp"
#include "cache/policies.hpp"
#include "driver/run.hpp"
#include "driver/run_config_fields.hpp"
#include "driver/stack_registry.hpp"
#include "stack/ladder.hpp"

namespace py = pybind11;
using namespace dbrepro;

namespace {

py::object parse_json(const std::string& text) { return py::module_::import("json").attr("loads")(text); }

// A Python value as the field's type: bool for bool only, integers of any
// size (too large or negative ones are refused by the field, naming it).
tpcc::FieldValue field_value(const tpcc::RunField& field, const py::handle& value) {
  const std::string name = field.name;
  const bool is_bool = py::isinstance<py::bool_>(value);
  switch (field.type) {
    case tpcc::FieldType::kBool:
      if (!is_bool) throw std::invalid_argument(name + ": must be True or False");
      return value.cast<bool>();
    case tpcc::FieldType::kUnsigned: {
      if (is_bool || !py::isinstance<py::int_>(value)) throw std::invalid_argument(name + ": must be an integer");
      const bool negative = value.cast<py::int_>() < py::int_(0);
      py::object magnitude = py::reinterpret_steal<py::object>(PyNumber_Absolute(value.ptr()));
      const unsigned long long n = PyLong_AsUnsignedLongLong(magnitude.ptr());
      if (n == static_cast<unsigned long long>(-1) && PyErr_Occurred()) {  // beyond 64 bits
        PyErr_Clear();
        throw std::invalid_argument(name + ": must be in 0.." + std::to_string(std::numeric_limits<u64>::max()) +
                                    ", got " + py::str(value).cast<std::string>());
      }
      return tpcc::FieldInteger{n, negative && n != 0};
    }
    case tpcc::FieldType::kFloat:
      if (is_bool || !(py::isinstance<py::int_>(value) || py::isinstance<py::float_>(value)))
        throw std::invalid_argument(name + ": must be a number");
      return value.cast<double>();
    case tpcc::FieldType::kText:
      if (!py::isinstance<py::str>(value)) throw std::invalid_argument(name + ": must be a string");
      return value.cast<std::string>();
    case tpcc::FieldType::kMix:
      try {
        return value.cast<std::map<std::string, double>>();
      } catch (const py::cast_error&) {
        throw std::invalid_argument(name + ": must be a mapping of transaction type to weight");
      }
  }
  throw std::logic_error("field_value: unknown field type");
}

py::object field_to_python(const tpcc::FieldValue& value) {
  return std::visit(
      [](const auto& v) -> py::object {
        using V = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<V, tpcc::FieldInteger>) return py::int_(v.magnitude);
        else return py::cast(v);
      },
      value);
}

// run_tpcc(progress=None, **settings): settings by RunConfig's field names
// (driver/run_config_fields.hpp), each checked as it is set.
py::object run_tpcc(const py::args& args, const py::kwargs& settings) {
  if (!args.empty()) throw std::invalid_argument("run_tpcc: settings are keyword arguments");
  tpcc::RunConfig config;
  py::object progress = py::none();
  for (const auto& [key, value] : settings) {
    const std::string name = key.cast<std::string>();
    if (name == "progress") {
      progress = py::reinterpret_borrow<py::object>(value);
      continue;
    }
    const tpcc::RunField& field = tpcc::find_run_field(name);
    field.set(config, field_value(field, value));
  }
  tpcc::validate(config);  // before the GIL is released: errors become ValueError

  // Ctrl-C and the user's callback at each progress tick (module_common.hpp).
  std::optional<py::error_already_set> pending;
  tpcc::ProgressFn tick = bindings::python_tick(progress, pending);

  tpcc::RunResult result;
  {
    py::gil_scoped_release release;
    result = tpcc::run(config, tick);
  }
  if (pending) throw std::move(*pending);
  return parse_json(to_json(result));
}

}  // namespace

void register_quantum(py::module_& m);  // quantum_module.cpp (E4)
void register_key_cache(py::module_& m);  // key_cache_module.cpp (E2)
void register_fifo_cache(py::module_& m);  // fifo_cache_module.cpp (E5)
void register_openedge(py::module_& m);  // openedge_module.cpp (E3)

PYBIND11_MODULE(_engine, m) {
  m.doc() = "dbrepro's C++ engine: TPC-C on a paged storage engine.";
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const std::invalid_argument& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    } catch (const std::out_of_range& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    } catch (const std::runtime_error& e) {
      PyErr_SetString(PyExc_RuntimeError, e.what());
    }
  });
  m.def("run_tpcc", &run_tpcc,
        "run_tpcc(progress=None, **settings): load a TPC-C database, run the transaction mix, check "
        "consistency; returns the result as a dict. Settings are named as run_config_fields() lists them.");
  m.def(
      "run_config_fields",
      [] {
        const tpcc::RunConfig defaults;
        py::list rows;
        for (const tpcc::RunField& f : tpcc::run_fields())
          rows.append(py::dict(py::arg("name") = f.name, py::arg("type") = tpcc::field_type_name(f.type),
                               py::arg("default") = field_to_python(f.get(defaults)), py::arg("help") = f.help));
        return rows;
      },
      "The settings of a TPC-C run (engine/src/driver/run_config_fields.hpp): name, type, default, help.");
  m.def(
      "ladder",
      [] {
        py::list steps;
        for (const auto& info : kLadder)
          steps.append(py::dict(py::arg("step") = info.step, py::arg("label") = info.label,
                                py::arg("component") = info.component, py::arg("page_size") = info.page_size));
        return steps;
      },
      "E1's removal ladder: step, the paper's label of its switch, component group, default page size.");
  m.def(
      "stacks",
      [] {
        py::list rows;
        for (const tpcc::StackInfo& s : tpcc::kStacks)
          rows.append(py::dict(py::arg("name") = s.name, py::arg("step") = s.step, py::arg("concurrent") = s.concurrent,
                               py::arg("disk") = s.disk, py::arg("metered") = s.metered, py::arg("study") = s.study,
                               py::arg("summary") = s.summary));
        return rows;
      },
      "The stacks a TPC-C run can pick (engine/src/driver/stack_registry.hpp), one dict each.");
  m.def(
      "policies",
      [] { return std::vector<std::string>(cache::kPolicyNames.begin(), cache::kPolicyNames.end()); },
      "The page replacement policies of the page cache (engine/src/cache/policies.hpp), in order.");
  m.def("build_info", [] { return parse_json(to_json(build_info())); }, "How the engine was built.");
  register_quantum(m);
  register_key_cache(m);
  register_fifo_cache(m);
  register_openedge(m);
}
