#include "products.h"

#include <string>

#include "errors.h"

namespace gemmtune::python {
namespace {

namespace py = pybind11;

std::int64_t tight_ld(const Operand& x, Layout layout) {
  return std::max<std::int64_t>(1, layout == Layout::row_major ? x.cols : x.rows);
}

// The operand in place when it meets the rules, else a copy that does (CPU only).
Storage place(Operand& x, std::optional<Layout> required, bool tight) {
  std::optional<Storage> storage = storage_of(x);
  const bool fits = storage && (!required || storage->layout == *required) &&
                    (!tight || storage->ld == tight_ld(x, storage->layout));
  if (fits) return *storage;
  if (x.device.kind != DeviceKind::cpu) {
    throw_invalid(x.name + " (" + x.shape_text() + ", steps of " + std::to_string(x.row_step) + " and " +
                  std::to_string(x.col_step) + " bytes) cannot be read in place on " + x.device.name() +
                  ", and gemmtune copies only host memory: pass a " +
                  (required == Layout::col_major ? "column-major" : "row-major") + (tight ? ", tightly packed" : "") +
                  " tensor");
  }
  x = copied(x, required.value_or(Layout::row_major));
  storage = storage_of(x);
  if (!storage) throw StatusError{internal_error("a tight copy of " + x.name + " is not addressable")};
  return *storage;
}

void check_same_device(const Operand& x, const Operand& y) {
  if (!(x.device == y.device)) {
    throw_invalid(x.name + " is on " + x.device.name() + " but " + y.name + " is on " + y.device.name());
  }
}

// C as gemmtune writes it (row-major, tight where the rules ask), or a temporary it is copied
// from afterwards.
void place_output(Product& p, const PlacementRules& rules) {
  std::optional<Storage> storage = storage_of(p.c);
  const auto fits = [&](const std::optional<Storage>& s) {
    return s && s->layout == Layout::row_major && (!rules.tight || s->ld == tight_ld(p.c, Layout::row_major));
  };
  if (fits(storage)) return;
  if (rules.may_transpose && storage && storage->layout == Layout::col_major) {
    // Cᵀ = Bᵀ·Aᵀ: a column-major C is a row-major Cᵀ.
    Operand a = p.a;
    p.a = p.b.transposed();
    p.b = a.transposed();
    p.c = p.c.transposed();
    return;
  }
  if (p.c.device.kind != DeviceKind::cpu) {
    throw_invalid("out (" + p.c.shape_text() + ") cannot be written in place on " + p.c.device.name() +
                  ": pass a row-major" + (rules.tight ? ", tightly packed" : "") + " tensor");
  }
  p.write_back = p.c;
  // beta reads C: the temporary starts as a copy of it.
  p.c = p.spec.beta != 0.0 ? copied(p.c, Layout::row_major) : new_output("out", p.c.rows, p.c.cols, p.c.dtype);
}

bool is_numpy_vector(py::handle x) { return py::isinstance<py::array>(x) && py::reinterpret_borrow<py::array>(x).ndim() == 1; }

// A view of a numpy array with a dim of 1 inserted at `axis` (0: a row, -1: a column).
py::object expanded(py::handle x, int axis) {
  return py::module_::import("numpy").attr("expand_dims")(x, axis);
}

// numpy's matmul reads a vector as A as one row and as B as one column, and C lacks the dims it
// added (a scalar when both are vectors). gemmtune takes the same views of numpy vectors; `out`
// must have C's dims.
struct Vectors {
  bool a = false, b = false;
  py::object a_matrix, b_matrix, out_matrix;
};

Vectors promote_vectors(py::handle a, py::handle b, py::handle out) {
  Vectors v;
  v.a = is_numpy_vector(a);
  v.b = is_numpy_vector(b);
  v.a_matrix = v.a ? expanded(a, 0) : py::reinterpret_borrow<py::object>(a);
  v.b_matrix = v.b ? expanded(b, -1) : py::reinterpret_borrow<py::object>(b);
  v.out_matrix = py::reinterpret_borrow<py::object>(out);
  if ((v.a || v.b) && !out.is_none()) {
    const int dims = 2 - int(v.a) - int(v.b);
    if (!py::isinstance<py::array>(out) || py::reinterpret_borrow<py::array>(out).ndim() != dims) {
      throw_invalid("a·b of " + std::string(v.a && v.b ? "two vectors is a scalar" : "a vector is a vector") +
                    ": out must have " + std::to_string(dims) + " dims");
    }
    if (v.a) v.out_matrix = expanded(v.out_matrix, 0);
    if (v.b) v.out_matrix = expanded(v.out_matrix, -1);
  }
  return v;
}

}  // namespace

DType natural_output(DType input) {
  switch (input) {
    case DType::s8: return DType::s32;
    case DType::bf16: return DType::f32;
    default: return input;
  }
}

Product plan_product(py::handle a, py::handle b, py::handle out, double alpha, double beta,
                     const PlacementRules& rules, py::handle stream) {
  Product p;
  // DLPack's numbering: 0 would be ambiguous (legacy or per-thread default) and is not allowed.
  const std::int64_t cuda_stream = stream.is_none() ? 1 : stream.cast<std::int64_t>();
  if (cuda_stream < 1) {
    throw_invalid("stream=" + std::to_string(cuda_stream) +
                  " is not a stream: pass 1 (the legacy default stream), 2 (the per-thread one) or a cudaStream_t");
  }
  const Vectors vectors = promote_vectors(a, b, out);
  p.a = operand_from(vectors.a_matrix, "a", cuda_stream);
  p.b = operand_from(vectors.b_matrix, "b", cuda_stream);
  if (p.a.cols != p.b.rows) {
    throw_invalid("a is " + p.a.shape_text() + " and b is " + p.b.shape_text() + ": a's columns (" +
                  std::to_string(p.a.cols) + ") must equal b's rows (" + std::to_string(p.b.rows) + ")");
  }
  check_same_device(p.a, p.b);
  p.device = p.a.device;
  if (!stream.is_none()) {
    if (p.device.kind == DeviceKind::cpu) throw_invalid("stream= is for CUDA operands; a and b are on cpu");
    // CUDA reads 1 and 2 as handles too: cudaStreamLegacy and cudaStreamPerThread.
    p.stream = reinterpret_cast<void*>(static_cast<std::uintptr_t>(cuda_stream));
  }
  p.spec.alpha = alpha;
  p.spec.beta = beta;
  if (out.is_none()) {
    if (beta != 0.0) throw_invalid("beta = " + py::repr(py::float_(beta)).cast<std::string>() + " reads C: pass it as out=");
    if (p.device.kind != DeviceKind::cpu) {
      throw_invalid("a and b are on " + p.device.name() + ": pass out=, since gemmtune allocates only host memory");
    }
    p.c = new_output("out", p.a.rows, p.b.cols, rules.output_dtype.value_or(natural_output(p.a.dtype)));
    p.result = p.c.owner;
    if (vectors.a && vectors.b) {
      p.scalar = true;
    } else if (vectors.a || vectors.b) {
      p.result = p.result.attr("reshape")(vectors.a ? p.b.cols : p.a.rows);
    }
  } else {
    p.c = operand_from(vectors.out_matrix, "out", cuda_stream);
    if (p.c.rows != p.a.rows || p.c.cols != p.b.cols) {
      throw_invalid("out is " + p.c.shape_text() + " but a·b is " + std::to_string(p.a.rows) + "x" +
                    std::to_string(p.b.cols));
    }
    check_same_device(p.a, p.c);
    if (!p.c.writable) throw_invalid("out is read-only");
    p.result = py::reinterpret_borrow<py::object>(out);
  }
  place_output(p, rules);
  // gemmtune reads A and B while it writes C: inputs that share C's bytes are copied first.
  for (Operand* input : {&p.a, &p.b}) {
    if (!overlaps(*input, p.c)) continue;
    if (p.device.kind != DeviceKind::cpu) {
      throw_invalid("out shares memory with " + input->name + " on " + p.device.name() +
                    ", and gemmtune copies only host memory");
    }
    *input = copied(*input, Layout::row_major);
  }
  const Storage a_storage = place(p.a, rules.a_layout, rules.tight);
  const Storage b_storage = place(p.b, rules.b_layout, rules.tight);
  const std::optional<Storage> c_storage = storage_of(p.c);
  if (!c_storage) throw StatusError{internal_error("out is not addressable after placement")};
  p.spec.m = p.a.rows;
  p.spec.n = p.b.cols;
  p.spec.k = p.a.cols;
  p.spec.a_type = p.a.dtype;
  p.spec.b_type = p.b.dtype;
  p.spec.c_type = p.c.dtype;
  p.spec.a_layout = a_storage.layout;
  p.spec.b_layout = b_storage.layout;
  p.spec.lda = a_storage.ld;
  p.spec.ldb = b_storage.ld;
  p.spec.ldc = c_storage->ld;
  return p;
}

void check_device(const Product& product, const Session& session) {
  const DeviceInfo& device = session.device();
  const bool same = product.device.kind == device.kind &&
                    (device.kind == DeviceKind::cpu || product.device.index == device.cuda.index);
  if (!same) {
    throw_invalid("the operands are on " + product.device.name() + " but the session runs on " + device.name);
  }
}

namespace {

py::object finish(Product& product) {
  if (product.write_back) product.write_back->array.attr("__setitem__")(py::ellipsis(), product.c.array);
  // numpy's scalar, as v @ v gives, read once the product is there.
  return product.scalar ? py::object(product.result[py::make_tuple(0, 0)]) : product.result;
}

}  // namespace

py::object run_product(Session& session, Product& product) {
  check_device(product, session);
  const Problem problem = value_or_throw(Problem::create(product.spec));
  Status status;
  {
    py::gil_scoped_release release;
    status = session.gemm(problem, product.a.data, product.b.data, product.c.data, product.stream);
  }
  throw_if_error(status);
  return finish(product);
}

py::object run_product(GemmOp& op, Product& product) {
  Status status;
  {
    py::gil_scoped_release release;
    status = op.run(product.spec.m, product.spec.n, product.spec.k, product.a.data, product.b.data, product.c.data,
                    product.stream);
  }
  throw_if_error(status);
  return finish(product);
}

}  // namespace gemmtune::python
