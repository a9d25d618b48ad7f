// One matrix operand from Python, as gemmtune sees it: where its elements are, their dtype, the
// steps between rows and columns, and the device that holds it. Numpy arrays are read through
// the buffer protocol (read-only arrays included, which numpy will not export through DLPack);
// any other object with __dlpack__ through DLPack, on the CPU or a CUDA device.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <optional>
#include <string>

#include "gemmtune/device.h"
#include "gemmtune/dtype.h"
#include "gemmtune/problem.h"

namespace gemmtune::python {

struct OperandDevice {
  DeviceKind kind = DeviceKind::cpu;
  int index = 0;
  std::string name() const;  // "cpu" or "cuda:N", as Session(device=...) takes it
  bool operator==(const OperandDevice&) const = default;
};

struct Operand {
  std::string name;   // "a", "b", "out": what error messages call it
  pybind11::object owner;  // keeps the memory alive: the array, a copy or a DLPack capsule
  // CPU operands: a numpy view of the memory (uint16 bit patterns for bf16), used to copy it;
  // None on a CUDA device.
  pybind11::object array;
  char* data = nullptr;
  DType dtype = DType::f32;
  std::int64_t rows = 0, cols = 0;
  std::int64_t row_step = 0, col_step = 0;  // bytes; negative or zero where the view says so
  OperandDevice device;
  bool writable = true;

  Operand transposed() const;
  std::string shape_text() const;  // "3x4"
};

// How gemmtune can address an operand in place: its layout and leading dimension in elements.
struct Storage {
  Layout layout;
  std::int64_t ld;
};

// A numpy array or an object with __dlpack__, as a 2-D operand; TypeError for anything else, an
// unknown dtype or a device gemmtune does not serve, InvalidArgumentError for another rank.
// `cuda_stream`: the stream gemmtune will run on, numbered as DLPack does (1 the legacy default
// stream, 2 the per-thread one, else a cudaStream_t), told to a CUDA producer so that it orders
// its pending work before it.
Operand operand_from(pybind11::handle object, const char* name, std::int64_t cuda_stream = 1);

// The layout and leading dimension of an operand whose elements gemmtune can reach in place
// (aligned, whole-element steps, unit steps along one dim); nullopt for any other view.
std::optional<Storage> storage_of(const Operand& operand);

// A tightly packed copy in `layout` (CPU operands only).
Operand copied(const Operand& operand, Layout layout);

// A new row-major numpy array for C.
Operand new_output(const char* name, std::int64_t rows, std::int64_t cols, DType dtype);

// Whether two operands on one device may share bytes: whether the address ranges their views
// span meet.
bool overlaps(const Operand& x, const Operand& y);

// A dtype given by name ("float32", "f32", "bfloat16", ...) or as a numpy dtype or type.
DType dtype_from_python(pybind11::handle dtype);

}  // namespace gemmtune::python
