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

#include "module_common.hpp"
#include "driver/build_info.hpp"
#include "driver/result_json.hpp"
#include "driver/run.hpp"
#include "stack/ladder.hpp"

namespace py = pybind11;
using namespace dbrepro;

namespace {

py::object parse_json(const std::string& text) { return py::module_::import("json").attr("loads")(text); }

// Integers arrive as i64 so that a negative value is a ValueError naming the
// parameter, not a pybind11 TypeError.
using bindings::in_range;

py::object run_tpcc(i64 warehouses, i64 transactions, double seconds, const std::map<std::string, double>& mix,
                    const std::string& variant, i64 seed, const std::string& stack, i64 page_size,
                    const std::string& key_compare, const std::string& meter, const std::string& log_dir,
                    i64 progress_every, bool check_consistency, const std::string& cache_policy,
                    double pool_fraction, const std::string& data_dir, bool o_direct, const std::string& trace_path,
                    const std::string& trace_format, i64 terminals, const py::object& progress) {
  tpcc::RunConfig config;
  config.warehouses = in_range<u32>("warehouses", warehouses);
  config.transactions = in_range<u64>("transactions", transactions);
  config.seconds = seconds;
  config.mix.fill(0.0);
  for (const auto& [name, weight] : mix) config.mix[static_cast<int>(tpcc::parse_txn_type(name))] = weight;
  config.variant = tpcc::parse_variant(variant);
  config.seed = in_range<u64>("seed", seed);
  config.stack = stack;
  config.page_size = in_range<u32>("page_size", page_size);
  config.key_compare = key_compare;
  config.meter = meter;
  config.log_dir = log_dir;
  config.progress_every = in_range<u64>("progress_every", progress_every);
  config.check_consistency = check_consistency;
  config.cache_policy = cache_policy;  // E5 (stack "disk")
  config.pool_fraction = pool_fraction;
  config.data_dir = data_dir;
  config.o_direct = o_direct;
  config.trace_path = trace_path;
  config.trace_format = trace_format;
  config.terminals = in_range<u32>("terminals", terminals);
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
  m.def("run_tpcc", &run_tpcc, py::kw_only(), py::arg("warehouses") = 1, py::arg("transactions") = 40000,
        py::arg("seconds") = 0.0,
        py::arg("mix") = std::map<std::string, double>{{"new_order", 0.5}, {"payment", 0.5}},
        py::arg("variant") = "paper", py::arg("seed") = 1, py::arg("stack") = "bare", py::arg("page_size") = 0,
        py::arg("key_compare") = "auto", py::arg("meter") = "none", py::arg("log_dir") = "",
        py::arg("progress_every") = 1000, py::arg("check_consistency") = true,
        py::arg("cache_policy") = "lru", py::arg("pool_fraction") = 0.1, py::arg("data_dir") = "",
        py::arg("o_direct") = true, py::arg("trace_path") = "", py::arg("trace_format") = "txt",
        py::arg("terminals") = 1, py::arg("progress") = py::none(),
        "Load a TPC-C database, run the transaction mix, check consistency; returns the result as a dict.");
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
  m.def("build_info", [] { return parse_json(to_json(build_info())); }, "How the engine was built.");
  register_quantum(m);
  register_key_cache(m);
  register_fifo_cache(m);
  register_openedge(m);
}
