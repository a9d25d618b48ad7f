// gemmtune.GemmOp: a multi-kernel op for a problem family whose dims vary at run time (op.h).
// Its operands have the family's dtypes and layouts and are tightly packed; host operands that
// are not are copied into that form first.
#include <pybind11/stl.h>

#include <memory>
#include <optional>
#include <string>

#include "bindings.h"
#include "errors.h"
#include "gemmtune/op.h"
#include "operands.h"
#include "products.h"

namespace gemmtune::python {
namespace {

namespace py = pybind11;

struct PyGemmOp {
  std::unique_ptr<GemmOp> op;
  ProblemSpec family;
  Session* session = nullptr;  // kept alive by the Python object (keep_alive in the constructor)
};

std::int64_t dim_or_dynamic(const std::optional<std::int64_t>& dim) { return dim ? *dim : kDynamic; }

void check_dtype(const Operand& x, DType expected) {
  if (x.dtype != expected) {
    throw py::type_error(x.name + " has dtype " + std::string(dtype_name(x.dtype)) + " but the op multiplies " +
                         std::string(dtype_name(expected)) + (x.name == "out" ? " into " : " ") + "operands");
  }
}

py::object call(PyGemmOp& self, py::handle a, py::handle b, py::handle out, py::handle stream) {
  PlacementRules rules;
  rules.a_layout = self.family.a_layout;
  rules.b_layout = self.family.b_layout;
  rules.tight = true;
  rules.may_transpose = false;
  rules.output_dtype = self.family.c_type;
  Product product = plan_product(a, b, out, self.family.alpha, self.family.beta, rules, stream);
  check_dtype(product.a, self.family.a_type);
  check_dtype(product.b, self.family.b_type);
  if (product.write_back) check_dtype(*product.write_back, self.family.c_type);
  check_dtype(product.c, self.family.c_type);
  check_device(product, *self.session);
  return run_product(*self.op, product);
}

py::list sub_kernels(const PyGemmOp& self) {
  py::list list;
  for (const SubKernel& sub : self.op->sub_kernels()) {
    list.append(py::dict(py::arg("backend") = sub.backend, py::arg("config") = sub.config.to_string(),
                         py::arg("hints") = sub.hints));
  }
  return list;
}

}  // namespace

void register_op(py::module_& module) {
  py::class_<PyGemmOp>(module, "GemmOp",
                       "A matmul for shapes that vary at run time: one sub-kernel tuned per size hint, each new shape\n"
                       "routed to one of them and remembered.")
      .def(py::init([](Session& session, std::optional<std::int64_t> m, std::optional<std::int64_t> n,
                       std::optional<std::int64_t> k, py::handle dtype, const std::string& layout, py::handle out_dtype,
                       double alpha, double beta, std::vector<std::int64_t> hints, const std::string& route,
                       bool persist_routes, std::int64_t revisit_after_calls) {
             ProblemSpec family;
             family.m = dim_or_dynamic(m);
             family.n = dim_or_dynamic(n);
             family.k = dim_or_dynamic(k);
             family.a_type = family.b_type = dtype_from_python(dtype);
             family.c_type = out_dtype.is_none() ? natural_output(family.a_type) : dtype_from_python(out_dtype);
             const auto layouts = value_or_throw(parse_layout_letters(layout));
             family.a_layout = layouts.first;
             family.b_layout = layouts.second;
             family.alpha = alpha;
             family.beta = beta;
             GemmOpOptions options;
             options.hints = std::move(hints);
             options.route = value_or_throw(Route::parse(route));
             options.persist_routes = persist_routes;
             options.revisit_after_calls = revisit_after_calls;
             std::optional<Result<std::unique_ptr<GemmOp>>> op;
             {
               py::gil_scoped_release release;  // tunes every hint
               op.emplace(GemmOp::create(session, family, options));
             }
             return PyGemmOp{value_or_throw(std::move(*op)), family, &session};
           }),
           py::keep_alive<1, 2>(), py::arg("session"), py::kw_only(), py::arg("m") = py::none(),
           py::arg("n") = py::none(), py::arg("k") = py::none(), py::arg("dtype") = "float32",
           py::arg("layout") = "nn", py::arg("out_dtype") = py::none(), py::arg("alpha") = 1.0, py::arg("beta") = 0.0,
           py::arg("hints") = std::vector<std::int64_t>{64, 256, 4096}, py::arg("route") = "benchmark",
           py::arg("persist_routes") = true, py::arg("revisit_after_calls") = 64,
           "GemmOp(session, *, m=None, n=None, k=None, ...): a dim left None is dynamic. Tunes every hint now.")
      .def("__call__", &call, py::arg("a"), py::arg("b"), py::arg("out") = py::none(), py::kw_only(),
           py::arg("stream") = py::none(),
           "alpha·a@b + beta·out for a shape of the family; returns out (or a new array).")
      .def(
          "route",
          [](PyGemmOp& self, std::int64_t m, std::int64_t n, std::int64_t k) {
            std::optional<Result<int>> index;
            {
              py::gil_scoped_release release;  // the benchmark route times the sub-kernels
              index.emplace(self.op->route(m, n, k));
            }
            return value_or_throw(std::move(*index));
          },
          py::arg("m"), py::arg("n"), py::arg("k"),
          "Routes a shape now; the index of the sub-kernel that serves it, -1 for a fresh tuning.")
      .def_property_readonly("sub_kernels", &sub_kernels)
      .def_property_readonly("routes_from_store", [](const PyGemmOp& self) { return self.op->routes_from_store(); })
      // The benchmark route's in-use check (GemmOpOptions::revisit_after_calls).
      .def_property_readonly("routes_held_in_use", [](const PyGemmOp& self) { return self.op->routes_held_in_use(); })
      .def_property_readonly("routes_revisited", [](const PyGemmOp& self) { return self.op->routes_revisited(); })
      .def_property_readonly("routes_changed_on_revisit",
                             [](const PyGemmOp& self) { return self.op->routes_changed_on_revisit(); })
      // Routes no rival sub-kernel could run when routed: not checked in use.
      .def_property_readonly("routes_alone", [](const PyGemmOp& self) { return self.op->routes_alone(); })
      .def(
          "route_settled",
          [](const PyGemmOp& self, std::int64_t m, std::int64_t n, std::int64_t k) {
            return self.op->route_settled(m, n, k);
          },
          py::arg("m"), py::arg("n"), py::arg("k"),
          "Whether a routed shape keeps its sub-kernel: not checked in use, or its check is done.")
      .def_property_readonly("route_policy", [](const PyGemmOp& self) { return self.op->policy().to_string(); });
}

}  // namespace gemmtune::python
