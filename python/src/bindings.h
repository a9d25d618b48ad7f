// The pieces of the module that module.cc assembles: each binding file registers its classes.
#pragma once

#include <pybind11/pybind11.h>

#include <nlohmann/json.hpp>

#include "gemmtune/session.h"

namespace gemmtune::python {

// Session(**options) and gemmtune.configure(**options): the keywords are the same for both.
SessionOptions session_options_from(const pybind11::kwargs& options);

// A JSON document (the CLI's reports) as Python dicts, lists and scalars.
pybind11::object to_python(const nlohmann::json& value);

void register_session(pybind11::module_& module);  // gemmtune.Session
void register_op(pybind11::module_& module);       // gemmtune.GemmOp

}  // namespace gemmtune::python
