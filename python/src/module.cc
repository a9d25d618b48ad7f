// `import gemmtune`: matmul on numpy arrays and DLPack tensors through a default session per
// device, Session, GemmOp, and the options of the default sessions.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "bindings.h"
#include "errors.h"
#include "products.h"
#include "worker_location.h"

namespace py = pybind11;
using namespace gemmtune;
using namespace gemmtune::python;

namespace {

// The default sessions live in the module's own dict, not in C++ statics, so that they go
// with the module when the interpreter shuts down rather than after it.
py::dict defaults(py::module_& module, const char* name) { return module.attr(name).cast<py::dict>(); }

py::object default_session(py::module_& module, const std::string& name) {
  // One session a device: "cuda" is the "cuda:0" that matmul names from a tensor's device.
  const std::string device = name == "cuda" ? "cuda:0" : name;
  py::dict sessions = defaults(module, "_default_sessions");
  if (sessions.contains(device)) return sessions[py::str(device)];
  py::dict options = defaults(module, "_default_options");
  py::kwargs kwargs;
  for (const auto& [key, value] : options) kwargs[key] = value;
  kwargs["device"] = device;
  py::object session = module.attr("Session")(**kwargs);
  sessions[py::str(device)] = session;
  return session;
}

}  // namespace

PYBIND11_MODULE(gemmtune, module) {
  module.doc() = "gemmtune: the fastest correct matrix multiply for each shape, tuned on first sight.";
  module.attr("__version__") = GEMMTUNE_VERSION;
  point_at_worker();
  register_errors(module);
  register_session(module);
  register_op(module);
  module.attr("_default_sessions") = py::dict();
  module.attr("_default_options") = py::dict();

  module.def(
      "matmul",
      [module](py::handle a, py::handle b, py::handle out, double alpha, double beta, py::handle stream) mutable {
        Product product = plan_product(a, b, out, alpha, beta, PlacementRules{}, stream);
        py::object session = default_session(module, product.device.name());
        return run_product(session.cast<Session&>(), product);
      },
      py::arg("a"), py::arg("b"), py::arg("out") = py::none(), py::arg("alpha") = 1.0, py::arg("beta") = 0.0,
      py::kw_only(), py::arg("stream") = py::none(),
      "alpha·a@b + beta·out through the default session of the operands' device; returns out or a new array.\n"
      "a, b: 2-D numpy arrays or objects with __dlpack__ (float32, float16, bfloat16, int8 -> int32).\n"
      "stream: for CUDA operands, the stream to run on as DLPack numbers it (a cudaStream_t, or 1 and 2 for\n"
      "the legacy and per-thread default streams); None: the legacy default stream.");
  module.def(
      "default_session", [module](const std::string& device) mutable { return default_session(module, device); },
      py::arg("device") = "cpu", "The session gemmtune.matmul uses for a device (made on first use).");
  module.def(
      "configure",
      [module](py::kwargs options) mutable {
        session_options_from(options);  // checked now, not at the next matmul
        module.attr("_default_options") = py::dict(options);
        // Sessions made with the old options are dropped (ops built on one keep it alive).
        module.attr("_default_sessions") = py::dict();
      },
      "Options of the default sessions made from now on: the keywords of Session() (store, store_mode, ...).");
  module.def(
      "compiled_backends",
      [](const std::string& kind) {
        py::list list;
        for (const BackendAvailability& b : gemmtune::compiled_backends(kind == "cuda" ? DeviceKind::cuda : DeviceKind::cpu)) {
          list.append(py::dict(py::arg("name") = b.name, py::arg("available") = b.available, py::arg("note") = b.note));
        }
        return list;
      },
      py::arg("kind") = "cpu", "The backends of a device kind ('cpu' or 'cuda') this build has, and why others are not.");
}
