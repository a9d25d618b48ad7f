#include "operands.h"

#include <dlpack/dlpack.h>

#include <algorithm>
#include <cstdint>

#include "errors.h"

namespace gemmtune::python {
namespace {

namespace py = pybind11;

const char* const kDtypesTaken =
    "gemmtune multiplies float32, float16 and int8 (int32 output) numpy arrays, and bfloat16 through DLPack";

[[noreturn]] void throw_type_error(const std::string& message) { throw py::type_error(message); }

std::string dtype_text(const py::dtype& dtype) { return py::str(py::handle(dtype)).cast<std::string>(); }

// The numpy dtype that holds a gemmtune dtype's bits (bf16 has none: its uint16 patterns).
py::dtype numpy_dtype(DType dtype) {
  switch (dtype) {
    case DType::f32: return py::dtype("float32");
    case DType::f16: return py::dtype("float16");
    case DType::bf16: return py::dtype("uint16");
    case DType::s8: return py::dtype("int8");
    case DType::s32: return py::dtype("int32");
  }
  return py::dtype("float32");
}

std::optional<DType> dtype_of_numpy(const py::dtype& dtype) {
  // Non-native byte order would have gemmtune read swapped bytes.
  if (py::str(dtype.attr("byteorder")).cast<std::string>() == ">") return std::nullopt;
  const char kind = dtype.kind();
  const auto size = dtype.itemsize();
  if (kind == 'f' && size == 4) return DType::f32;
  if (kind == 'f' && size == 2) return DType::f16;
  if (kind == 'i' && size == 1) return DType::s8;
  if (kind == 'i' && size == 4) return DType::s32;
  return std::nullopt;
}

std::optional<DType> dtype_of_dlpack(const DLDataType& type) {
  if (type.lanes != 1) return std::nullopt;
  if (type.code == kDLFloat && type.bits == 32) return DType::f32;
  if (type.code == kDLFloat && type.bits == 16) return DType::f16;
  if (type.code == kDLBfloat && type.bits == 16) return DType::bf16;
  if (type.code == kDLInt && type.bits == 8) return DType::s8;
  if (type.code == kDLInt && type.bits == 32) return DType::s32;
  return std::nullopt;
}

std::string shape_of(const py::array& array) {
  std::string text = "(";
  for (py::ssize_t i = 0; i < array.ndim(); ++i) text += (i ? ", " : "") + std::to_string(array.shape(i));
  return text + (array.ndim() == 1 ? ",)" : ")");
}

// `dtype` overrides the array's for bf16 operands, whose numpy view holds uint16.
Operand from_numpy(const py::array& array, const char* name, std::optional<DType> dtype, py::object owner) {
  if (array.ndim() != 2) {
    throw_invalid(std::string(name) + " must be a 2-D matrix; got shape " + shape_of(array));
  }
  if (!dtype) dtype = dtype_of_numpy(array.dtype());
  if (!dtype) {
    throw_type_error(std::string(name) + " has dtype " + dtype_text(array.dtype()) + "; " +
                     kDtypesTaken);
  }
  Operand operand;
  operand.name = name;
  operand.owner = std::move(owner);
  operand.array = array;
  operand.data = static_cast<char*>(const_cast<void*>(array.data()));
  operand.dtype = *dtype;
  operand.rows = array.shape(0);
  operand.cols = array.shape(1);
  operand.row_step = array.strides(0);
  operand.col_step = array.strides(1);
  operand.writable = array.writeable();
  return operand;
}

OperandDevice device_of_dlpack(const DLDevice& device, const char* name) {
  switch (device.device_type) {
    case kDLCPU:
    case kDLCUDAHost:  // pinned host memory: the CPU reads it directly
      return {DeviceKind::cpu, 0};
    case kDLCUDA:
    case kDLCUDAManaged:
      return {DeviceKind::cuda, device.device_id};
    default:
      throw_type_error(std::string(name) + " is on DLPack device type " + std::to_string(int(device.device_type)) +
                       "; gemmtune takes CPU and CUDA memory");
  }
}

Operand from_dlpack(py::handle object, const char* name, std::int64_t cuda_stream) {
  // The producer needs to know the consumer's stream before it hands a CUDA tensor over. CPU
  // producers take no stream.
  py::object capsule;
  if (py::hasattr(object, "__dlpack_device__")) {
    py::tuple device = object.attr("__dlpack_device__")();
    const int type = device[0].cast<int>();
    const bool cuda = type == kDLCUDA || type == kDLCUDAManaged;
    capsule = cuda ? object.attr("__dlpack__")(py::arg("stream") = cuda_stream) : object.attr("__dlpack__")();
  } else {
    capsule = object.attr("__dlpack__")();
  }
  auto* managed = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), "dltensor"));
  if (managed == nullptr) {
    PyErr_Clear();
    throw_type_error(std::string(name) + ".__dlpack__() did not return an unused DLPack capsule");
  }
  // The capsule stays unconsumed: its destructor, the producer's, calls the deleter once the
  // operand lets go of it.
  const DLTensor& tensor = managed->dl_tensor;
  if (tensor.ndim != 2) {
    throw_invalid(std::string(name) + " must be a 2-D matrix; got a DLPack tensor of " + std::to_string(tensor.ndim) +
                  " dims");
  }
  const std::optional<DType> dtype = dtype_of_dlpack(tensor.dtype);
  if (!dtype) {
    throw_type_error(std::string(name) + " has DLPack dtype code " + std::to_string(int(tensor.dtype.code)) +
                     " bits " + std::to_string(int(tensor.dtype.bits)) + " lanes " +
                     std::to_string(int(tensor.dtype.lanes)) + "; " + kDtypesTaken);
  }
  const OperandDevice device = device_of_dlpack(tensor.device, name);
  const std::int64_t size = std::int64_t(dtype_size(*dtype));
  const std::int64_t rows = tensor.shape[0], cols = tensor.shape[1];
  // No strides: compact row-major (DLPack's convention).
  const std::int64_t row_step = (tensor.strides ? tensor.strides[0] : cols) * size;
  const std::int64_t col_step = (tensor.strides ? tensor.strides[1] : 1) * size;
  char* data = static_cast<char*>(tensor.data) + tensor.byte_offset;
  if (device.kind == DeviceKind::cpu) {
    // A numpy view over the producer's memory, so the CPU path (copies included) is one.
    py::array view(numpy_dtype(*dtype), {rows, cols}, {row_step, col_step}, data, capsule);
    return from_numpy(view, name, dtype, capsule);
  }
  Operand operand;
  operand.name = name;
  operand.owner = capsule;
  operand.array = py::none();
  operand.data = data;
  operand.dtype = *dtype;
  operand.rows = rows;
  operand.cols = cols;
  operand.row_step = row_step;
  operand.col_step = col_step;
  operand.device = device;
  return operand;
}

// Lowest and one-past-highest byte a view spans; equal when it spans none.
std::pair<std::uintptr_t, std::uintptr_t> byte_range(const Operand& x) {
  if (x.rows == 0 || x.cols == 0) return {0, 0};
  const std::int64_t row_span = (x.rows - 1) * x.row_step, col_span = (x.cols - 1) * x.col_step;
  const auto base = reinterpret_cast<std::intptr_t>(x.data);
  const std::intptr_t low = base + std::min<std::int64_t>(0, row_span) + std::min<std::int64_t>(0, col_span);
  const std::intptr_t high = base + std::max<std::int64_t>(0, row_span) + std::max<std::int64_t>(0, col_span) +
                             std::int64_t(dtype_size(x.dtype));
  return {std::uintptr_t(low), std::uintptr_t(high)};
}

}  // namespace

std::string OperandDevice::name() const {
  return kind == DeviceKind::cpu ? std::string("cpu") : "cuda:" + std::to_string(index);
}

Operand Operand::transposed() const {
  Operand t = *this;
  std::swap(t.rows, t.cols);
  std::swap(t.row_step, t.col_step);
  if (!array.is_none()) t.array = array.attr("T");
  return t;
}

std::string Operand::shape_text() const { return std::to_string(rows) + "x" + std::to_string(cols); }

Operand operand_from(py::handle object, const char* name, std::int64_t cuda_stream) {
  if (py::isinstance<py::array>(object)) {
    return from_numpy(py::reinterpret_borrow<py::array>(object), name, std::nullopt,
                      py::reinterpret_borrow<py::object>(object));
  }
  if (py::hasattr(object, "__dlpack__")) return from_dlpack(object, name, cuda_stream);
  throw_type_error(std::string(name) + " is a " + py::str(py::type::handle_of(object).attr("__name__")).cast<std::string>() +
                   "; gemmtune.matmul takes numpy arrays and objects with __dlpack__");
}

std::optional<Storage> storage_of(const Operand& x) {
  // No element is read or written: any leading dimension will do (numpy gives empty arrays
  // steps of 0).
  if (x.rows == 0 || x.cols == 0) return Storage{Layout::row_major, std::max<std::int64_t>(x.cols, 1)};
  const std::int64_t size = std::int64_t(dtype_size(x.dtype));
  if (reinterpret_cast<std::uintptr_t>(x.data) % size != 0) return std::nullopt;
  if (x.row_step % size != 0 || x.col_step % size != 0) return std::nullopt;
  const std::int64_t row_stride = x.row_step / size, col_stride = x.col_step / size;
  // A dim of extent 1 has no step to speak of: numpy and DLPack producers put anything there.
  if ((x.cols <= 1 || col_stride == 1) && (x.rows <= 1 || row_stride >= std::max<std::int64_t>(x.cols, 1))) {
    return Storage{Layout::row_major, x.rows <= 1 ? std::max<std::int64_t>(x.cols, 1) : row_stride};
  }
  if ((x.rows <= 1 || row_stride == 1) && (x.cols <= 1 || col_stride >= std::max<std::int64_t>(x.rows, 1))) {
    return Storage{Layout::col_major, x.cols <= 1 ? std::max<std::int64_t>(x.rows, 1) : col_stride};
  }
  return std::nullopt;
}

Operand copied(const Operand& x, Layout layout) {
  // np.array(copy=True) copies even a view that is already tight: the copy may be made to break
  // an overlap with C.
  py::module_ numpy = py::module_::import("numpy");
  py::array copy = numpy.attr("array")(x.array, py::arg("copy") = true,
                                       py::arg("order") = layout == Layout::row_major ? "C" : "F");
  return from_numpy(copy, x.name.c_str(), x.dtype, copy);
}

Operand new_output(const char* name, std::int64_t rows, std::int64_t cols, DType dtype) {
  py::array array(numpy_dtype(dtype), {rows, cols});
  return from_numpy(array, name, dtype, array);
}

bool overlaps(const Operand& x, const Operand& y) {
  const auto [x_low, x_high] = byte_range(x);
  const auto [y_low, y_high] = byte_range(y);
  return x_low < x_high && y_low < y_high && x_low < y_high && y_low < x_high;
}

DType dtype_from_python(py::handle dtype) {
  if (py::isinstance<py::str>(dtype)) {
    const std::string name = dtype.cast<std::string>();
    for (const auto& [numpy_name, type] : {std::pair{"float32", DType::f32}, std::pair{"float16", DType::f16},
                                           std::pair{"bfloat16", DType::bf16}, std::pair{"int8", DType::s8},
                                           std::pair{"int32", DType::s32}}) {
      if (name == numpy_name) return type;
    }
    return value_or_throw(parse_dtype(name));
  }
  const py::dtype numpy_type = py::dtype::from_args(py::reinterpret_borrow<py::object>(dtype));
  if (std::optional<DType> type = dtype_of_numpy(numpy_type)) return *type;
  throw_type_error("dtype " + dtype_text(numpy_type) + " is not one gemmtune multiplies; " +
                   kDtypesTaken);
}

}  // namespace gemmtune::python
