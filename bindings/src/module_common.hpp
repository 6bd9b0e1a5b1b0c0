#pragma once
// Shared by the extension's modules: range checks that name the parameter
// (they become Python ValueErrors), and the progress tick of a long run.
#include <pybind11/pybind11.h>

#include <limits>
#include <optional>
#include <stdexcept>
#include <string>

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
