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
#include "driver/looking_glass/fields.hpp"
#include "driver/tpcc/fields.hpp"
#include "driver/tpcc/run.hpp"
#include "driver/tpcc/stack_registry.hpp"
#include "stack/ladder.hpp"

namespace py = pybind11;
using namespace dbrepro;

namespace {

// run_tpcc(progress=None, **settings): settings by RunConfig's field names
// (driver/tpcc/fields.hpp), each checked as it is set.
py::object run_tpcc(const py::args& args, const py::kwargs& settings) {
  py::object progress = py::none();
  const tpcc::RunConfig config = bindings::config_from("run_tpcc", tpcc::run_fields(), args, settings, &progress);
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
  return bindings::parse_json(to_json(result));
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
  bindings::def_config<tpcc::RunConfig>(m, "run_config", tpcc::run_fields(), tpcc::validate,
                                        "a TPC-C run (engine/src/driver/tpcc/fields.hpp)");
  bindings::def_config<looking_glass::CountConfig>(
      m, "looking_glass_config", looking_glass::count_fields(),
      [](const looking_glass::CountConfig& c) { looking_glass::validate(c); },
      "E1's instruction count (engine/src/driver/looking_glass/fields.hpp)", looking_glass::required_count_fields());
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
      "The stacks a TPC-C run can pick (engine/src/driver/tpcc/stack_registry.hpp), one dict each.");
  m.def(
      "policies",
      [] { return std::vector<std::string>(cache::kPolicyNames.begin(), cache::kPolicyNames.end()); },
      "The page replacement policies of the page cache (engine/src/cache/policies.hpp), in order.");
  m.def("build_info", [] { return bindings::parse_json(to_json(build_info())); }, "How the engine was built.");
  register_quantum(m);
  register_key_cache(m);
  register_fifo_cache(m);
  register_openedge(m);
}
