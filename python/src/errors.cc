#include "errors.h"

#include <array>

namespace gemmtune::python {
namespace {

namespace py = pybind11;

// One exception class per ErrorCode, indexed by the code; [0] (ok) holds the base class.
std::array<PyObject*, 9> exception_types{};

struct ExceptionSpec {
  ErrorCode code;
  const char* name;
  PyObject* builtin;  // a second base, or null
  const char* doc;
};

PyObject* make_type(py::module_& module, const char* name, PyObject* base, PyObject* builtin, const char* doc) {
  const std::string qualified = std::string("gemmtune.") + name;
  py::tuple bases = builtin ? py::make_tuple(py::handle(base), py::handle(builtin)) : py::make_tuple(py::handle(base));
  PyObject* type = PyErr_NewExceptionWithDoc(qualified.c_str(), doc, bases.ptr(), nullptr);
  if (type == nullptr) throw py::error_already_set();
  module.add_object(name, py::handle(type));  // the module keeps a reference
  return type;
}

void raise(const Status& status) {
  PyObject* type = exception_types[std::size_t(status.code())];
  if (type == nullptr) type = exception_types[0];
  py::object error = py::reinterpret_steal<py::object>(PyObject_CallFunction(type, "s", status.message().c_str()));
  if (!error) return;  // the call set its own error
  error.attr("code") = std::string(error_code_name(status.code()));
  PyErr_SetObject(type, error.ptr());
}

}  // namespace

void register_errors(py::module_& module) {
  exception_types[0] = make_type(module, "Error", PyExc_RuntimeError, nullptr,
                                 "An error reported by gemmtune; `code` names its kind (invalid_argument, ...).");
  const std::array<ExceptionSpec, 8> specs = {{
      {ErrorCode::invalid_argument, "InvalidArgumentError", PyExc_ValueError,
       "Something that can never work: a bad shape, stride, scalar or option."},
      {ErrorCode::unsupported, "UnsupportedError", PyExc_ValueError,
       "Valid, but this device, build or dtype combination cannot do it."},
      {ErrorCode::not_found, "NotFoundError", PyExc_LookupError, "A named backend, device or entry does not exist."},
      {ErrorCode::io_error, "StoreIOError", nullptr, "A file or socket operation failed."},
      {ErrorCode::corrupt_data, "CorruptDataError", nullptr, "Stored or loaded data is malformed."},
      {ErrorCode::unavailable, "UnavailableError", nullptr, "A service (a GPU, Redis) is not reachable now."},
      {ErrorCode::wrong_result, "WrongResultError", nullptr, "A kernel computed something other than the reference."},
      {ErrorCode::internal, "InternalError", nullptr, "A bug in gemmtune."},
  }};
  for (const ExceptionSpec& spec : specs) {
    exception_types[std::size_t(spec.code)] = make_type(module, spec.name, exception_types[0], spec.builtin, spec.doc);
  }
  py::register_exception_translator([](std::exception_ptr pointer) {
    try {
      if (pointer) std::rethrow_exception(pointer);
    } catch (const StatusError& error) {
      raise(error.status);
    }
  });
}

}  // namespace gemmtune::python
