// gemmtune's errors as Python exceptions. Every Status that reaches Python becomes an instance of
// gemmtune.Error (a RuntimeError) or of the subclass for its code, with the library's message and
// the code's name in `.code`; invalid arguments are also ValueErrors and missing names
// LookupErrors, so code that catches the built-in kinds keeps working.
#pragma once

#include <pybind11/pybind11.h>

#include <string>

#include "gemmtune/status.h"

namespace gemmtune::python {

// Carries a non-ok Status from C++ to the translator registered by register_errors().
struct StatusError {
  Status status;
};

// Creates gemmtune.Error and its subclasses in `module` and translates StatusError into them.
void register_errors(pybind11::module_& module);

// Raises the status as its Python exception; does nothing for ok.
inline void throw_if_error(const Status& status) {
  if (!status.is_ok()) throw StatusError{status};
}

template <class T>
T value_or_throw(Result<T> result) {
  throw_if_error(result.status());
  return std::move(result).value();
}

// An invalid_argument error from the module's own checks (shapes, devices), raised as
// gemmtune.InvalidArgumentError like the library's.
[[noreturn]] inline void throw_invalid(std::string message) {
  throw StatusError{invalid_argument(std::move(message))};
}

}  // namespace gemmtune::python
