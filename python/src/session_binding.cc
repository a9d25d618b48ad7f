// gemmtune.Session: a session on one device, its options from keywords, and its tuning reports
// as dicts (the CLI's `tune --json`, made by the same code).
#include <pybind11/stl.h>

#include <chrono>
#include <optional>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "bindings.h"
#include "errors.h"
#include "gemmtune/report_json.h"
#include "products.h"

namespace gemmtune::python {
namespace {

namespace py = pybind11;

// Each keyword of Session() and configure(), with what it sets.
const char* const kSessionKeywords[] = {
    "device",        // "cpu", "cuda", "cuda:N"
    "store",         // SQLite file of the tuning store, or "off"; None: $GEMMTUNE_CACHE or the default place
    "store_mode",    // "rw", "ro", "off"; None: $GEMMTUNE_CACHE_MODE or rw
    "redis_url",     // shared store behind the local one; None: $GEMMTUNE_REDIS_URL
    "search",        // "default" or "exhaustive"
    "benchmark",     // "all" or "top:K"
    "fast",          // True: exhaustive search, the cost model's top k timed (its fitted k, else 5)
    "backends",      // names to choose among; None: all the device has
    "samples",       // timing samples per choice
    "min_sample_ms", // each sample runs at least this long
    "seed",          // verification inputs' seed; 0 draws fresh ones
    "verbose",       // print each tuning's table to stderr
    "lut",           // kernel lookup table file; None: $GEMMTUNE_LUT
    "model",         // cost model file; None: $GEMMTUNE_MODEL or the one shipped for the device
    "route",         // new shapes in matmul: "autotune" (default), "benchmark", "distance", "fixed:I"
    "hints",         // size hints of the routed dynamic dims
    "dynamic_dims",  // which of "mnk" vary for routing
};

std::string text(py::handle value) { return value.cast<std::string>(); }

}  // namespace

SessionOptions session_options_from(const py::kwargs& kwargs) {
  const std::set<std::string> known(std::begin(kSessionKeywords), std::end(kSessionKeywords));
  SessionOptions options;
  for (const auto& [key, value] : kwargs) {
    const std::string name = text(key);
    if (!known.count(name)) {
      std::string list;
      for (const char* k : kSessionKeywords) list += (list.empty() ? "" : ", ") + std::string(k);
      throw py::type_error("unknown session option '" + name + "' (known: " + list + ")");
    }
    if (value.is_none()) continue;  // the default, from the environment where it has one
    if (name == "device") options.device = text(value);
    if (name == "store") options.store.path = text(value);
    if (name == "store_mode") options.store.mode = value_or_throw(parse_store_mode(text(value)));
    if (name == "redis_url") options.store.redis_url = text(value);
    if (name == "search") options.tuning.search = value_or_throw(parse_search_space(text(value)));
    if (name == "benchmark") options.tuning.benchmark = value_or_throw(parse_benchmark_space(text(value)));
    if (name == "fast" && value.cast<bool>()) {
      set_fast(options.tuning);
    }
    if (name == "backends") options.tuning.backends = value.cast<std::vector<std::string>>();
    if (name == "samples") options.tuning.timing.samples = value.cast<int>();
    if (name == "min_sample_ms") options.tuning.timing.min_sample_ms = value.cast<double>();
    if (name == "seed") options.tuning.seed = value.cast<std::uint64_t>();
    if (name == "verbose") options.tuning.print_table = value.cast<bool>();
    if (name == "lut") options.lut_path = text(value);
    if (name == "model") options.model_path = text(value);
    if (name == "route") options.routing.route = value_or_throw(Route::parse(text(value)));
    if (name == "hints") options.routing.hints = value.cast<std::vector<std::int64_t>>();
    if (name == "dynamic_dims") options.routing.dynamic_dims = text(value);
  }
  if (kwargs.contains("fast") && kwargs["fast"].cast<bool>() && (kwargs.contains("search") || kwargs.contains("benchmark"))) {
    throw_invalid("fast=True means search='exhaustive', benchmark='top:K' (the cost model's own K); give either "
                  "fast or search/benchmark");
  }
  return options;
}

py::object to_python(const nlohmann::json& value) {
  switch (value.type()) {
    case nlohmann::json::value_t::null: return py::none();
    case nlohmann::json::value_t::boolean: return py::bool_(value.get<bool>());
    case nlohmann::json::value_t::number_integer: return py::int_(value.get<std::int64_t>());
    case nlohmann::json::value_t::number_unsigned: return py::int_(value.get<std::uint64_t>());
    case nlohmann::json::value_t::number_float: return py::float_(value.get<double>());
    case nlohmann::json::value_t::string: return py::str(value.get<std::string>());
    case nlohmann::json::value_t::array: {
      py::list list;
      for (const nlohmann::json& item : value) list.append(to_python(item));
      return list;
    }
    case nlohmann::json::value_t::object: {
      py::dict dict;
      for (const auto& [key, item] : value.items()) dict[py::str(key)] = to_python(item);
      return dict;
    }
    default: return py::none();  // binary and discarded values: never in gemmtune's reports
  }
}

namespace {

// A problem from keywords, as `gemmtune tune` takes it: dims, one input dtype, layout letters.
Problem problem_from(std::int64_t m, std::int64_t n, std::int64_t k, py::handle dtype, const std::string& layout,
                     py::handle out_dtype, double alpha, double beta, std::int64_t lda, std::int64_t ldb,
                     std::int64_t ldc, bool allow_tf32) {
  ProblemSpec spec;
  spec.m = m;
  spec.n = n;
  spec.k = k;
  spec.a_type = spec.b_type = dtype_from_python(dtype);
  spec.c_type = out_dtype.is_none() ? (spec.a_type == DType::s8 ? DType::s32 : spec.a_type) : dtype_from_python(out_dtype);
  const auto layouts = value_or_throw(parse_layout_letters(layout));
  spec.a_layout = layouts.first;
  spec.b_layout = layouts.second;
  spec.lda = lda;
  spec.ldb = ldb;
  spec.ldc = ldc;
  spec.alpha = alpha;
  spec.beta = beta;
  spec.allow_tf32 = allow_tf32;
  return value_or_throw(Problem::create(spec));
}

py::dict report_dict(const Session& session, const Problem& problem, const TuneReport& report) {
  nlohmann::json json = nlohmann::json::parse(json_text(report));
  json["problem"] = nlohmann::json::parse(json_text(problem));
  json["device"] = nlohmann::json::parse(json_text(session.device()));
  json["table"] = report.table();
  return to_python(json);
}

py::dict store_dict(const Session& session) {
  const StoreOptions& store = session.options().store;
  return py::dict(py::arg("path") = store.resolved_path(), py::arg("mode") = std::string(store_mode_name(store.mode)),
                  py::arg("redis_url") = store.redis_url);
}

}  // namespace

void register_session(py::module_& module) {
  py::class_<Session>(module, "Session", "A gemmtune session on one device: tunes each new problem, then dispatches.")
      .def(py::init([](py::kwargs options) { return value_or_throw(Session::create(session_options_from(options))); }),
           "Session(device='cpu', store=None, store_mode=None, redis_url=None, search=None, benchmark=None,\n"
           "        fast=None, backends=None, samples=None, min_sample_ms=None, seed=None, verbose=None,\n"
           "        lut=None, model=None, route=None, hints=None, dynamic_dims=None); None keeps the default.")
      .def(
          "matmul",
          [](Session& session, py::handle a, py::handle b, py::handle out, double alpha, double beta, py::handle stream) {
            Product product = plan_product(a, b, out, alpha, beta, PlacementRules{}, stream);
            return run_product(session, product);
          },
          py::arg("a"), py::arg("b"), py::arg("out") = py::none(), py::arg("alpha") = 1.0, py::arg("beta") = 0.0,
          py::kw_only(), py::arg("stream") = py::none(),
          "alpha·a@b + beta·out on this session's device; returns out (or a new array). stream: CUDA only.")
      .def(
          "tune",
          [](Session& session, std::int64_t m, std::int64_t n, std::int64_t k, py::handle dtype, const std::string& layout,
             py::handle out_dtype, double alpha, double beta, std::int64_t lda, std::int64_t ldb, std::int64_t ldc,
             bool allow_tf32, bool use_store) {
            const Problem problem = problem_from(m, n, k, dtype, layout, out_dtype, alpha, beta, lda, ldb, ldc, allow_tf32);
            std::optional<Result<TuneReport>> result;
            {
              py::gil_scoped_release release;  // a tuning takes seconds; other threads go on
              result.emplace(use_store ? session.tune_or_load(problem) : session.tune(problem));
            }
            const TuneReport report = value_or_throw(std::move(*result));
            return report_dict(session, problem, report);
          },
          py::arg("m"), py::arg("n"), py::arg("k"), py::arg("dtype") = "float32", py::arg("layout") = "nn",
          py::kw_only(), py::arg("out_dtype") = py::none(), py::arg("alpha") = 1.0, py::arg("beta") = 0.0,
          py::arg("lda") = 0, py::arg("ldb") = 0, py::arg("ldc") = 0, py::arg("allow_tf32") = false,
          py::arg("use_store") = false,
          "Tunes the problem now (use_store=True: the stored pick if there is one) and returns the report as a dict:\n"
          "the keys of `gemmtune tune --json`, and `table`, the AUTOTUNE table.")
      .def(
          "pick",
          [](const Session& session, std::int64_t m, std::int64_t n, std::int64_t k, py::handle dtype,
             const std::string& layout, py::handle out_dtype, double beta, std::int64_t lda, std::int64_t ldb,
             std::int64_t ldc) -> py::object {
            const Problem problem = problem_from(m, n, k, dtype, layout, out_dtype, 1.0, beta, lda, ldb, ldc, false);
            Result<PickInfo> pick = session.pick(problem);
            if (pick.status().code() == ErrorCode::not_found) return py::none();
            const PickInfo info = value_or_throw(std::move(pick));
            return py::dict(py::arg("backend") = info.backend, py::arg("config") = info.config.to_string(),
                            py::arg("time_us") = info.time_us < 0 ? py::object(py::none()) : py::float_(info.time_us),
                            py::arg("routed") = info.routed);
          },
          py::arg("m"), py::arg("n"), py::arg("k"), py::arg("dtype") = "float32", py::arg("layout") = "nn",
          py::kw_only(), py::arg("out_dtype") = py::none(), py::arg("beta") = 0.0, py::arg("lda") = 0,
          py::arg("ldb") = 0, py::arg("ldc") = 0,
          "The kernel installed for a problem (dict), or None if the session has not met it.")
      .def_property_readonly("device", [](const Session& session) { return to_python(nlohmann::json::parse(json_text(session.device()))); })
      .def_property_readonly("backends", &Session::backend_names)
      .def_property_readonly("store", &store_dict,
                             "The tuning store: {'path': SQLite file or 'off', 'mode': rw|ro|off, 'redis_url': ...}.")
      .def(
          "_time_gemm",
          [](Session& session, py::handle a, py::handle b, py::handle out, std::int64_t calls) {
            // For python/bench/call_overhead.py: the same product called from C++ in a loop, the
            // figure a Python call's time is compared with. Microseconds per call.
            Product product = plan_product(a, b, out, 1.0, 0.0, PlacementRules{});
            check_device(product, session);
            const Problem problem = value_or_throw(Problem::create(product.spec));
            throw_if_error(session.gemm(problem, product.a.data, product.b.data, product.c.data));
            py::gil_scoped_release release;
            const auto start = std::chrono::steady_clock::now();
            Status status;
            for (std::int64_t i = 0; i < calls && status.is_ok(); ++i) {
              status = session.gemm(problem, product.a.data, product.b.data, product.c.data);
            }
            const std::chrono::duration<double, std::micro> elapsed = std::chrono::steady_clock::now() - start;
            py::gil_scoped_acquire acquire;
            throw_if_error(status);
            return elapsed.count() / double(std::max<std::int64_t>(calls, 1));
          },
          py::arg("a"), py::arg("b"), py::arg("out"), py::arg("calls"))
      .def("__repr__", [](const Session& session) { return "gemmtune.Session(device='" + session.device().name + "')"; });
}

}  // namespace gemmtune::python
