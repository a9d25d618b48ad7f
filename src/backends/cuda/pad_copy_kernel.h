// The pad-copy kernel (kernels/pad_copy.cuh): an operand's lines copied into a buffer of wider
// pitch, for families whose kernels read through TMA (padded_operand.h).
#pragma once

#include <cuda.h>

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cuda_module.h"
#include "gemmtune/device.h"
#include "gemmtune/status.h"
#include "padded_operand.h"

namespace gemmtune::cuda {

// kernels/pad_copy.cuh as embedded, and its NVRTC options for a device.
std::string_view pad_copy_source();
std::vector<std::string> pad_copy_options(const CudaInfo& device);
// A short hash of the kernel's source, for the versions of the families whose picks it times.
std::string pad_copy_version();

// The kernel on `device`: compiled by NVRTC (or taken from the cubin cache) on a process's first
// use and loaded once. Its module stays loaded until the process exits: any prepared kernel of
// any family may hold the function.
Result<CUfunction> pad_copy_function(const CudaInfo& device);

// The chunk the kernel copies `shape` in from `caller` to `copy`: the widest (8, 4, 2 or 1
// bytes) that divides the caller's pitch, its line and its address; but 16 bytes, shifted into
// place from any source address, where the copy's lines start on 16-byte boundaries (every
// padded copy's do) and that chunk is narrower than 8 or the caller's lines lie on 16 too.
int pad_copy_chunk_bytes(const PaddedCopyShape& shape, const void* caller, const void* copy);

// The buffer a device's padded copies are made in, by every kernel that pads (wgmma,
// cublaslt): one, grown to the largest call's copies, the calls taking turns on it
// (SerializedScratch::begin with the call's bytes, then finish). A buffer of each prepared
// kernel's own held up to 2 x 64 MiB for each: a tuning prepares dozens at once, and a program
// keeps an installed kernel for every shape it meets. Allocated on the device current at its
// first growth: a caller makes `device` current first.
SerializedScratch& padded_copies_buffer(int device);

// Enqueues the copy of `caller` into `copy` on `stream`.
Status enqueue_pad_copy(CUfunction function, const PaddedCopyShape& shape, const void* caller, void* copy,
                        void* stream, int sm_count);

// The copies of a call's two operands (A and B, or a kernel's A' and B') in one buffer, each at
// a multiple of 256 bytes, the alignment the kernels were tuned at: the padded copies of wgmma
// and cuBLASLt, and the session's copies of operands off the grid.
class OperandCopies {
 public:
  // Operand i (0 or 1) is copied as `shape` says, after those added before it.
  void add(std::size_t i, const PaddedCopyShape& shape);
  bool copies(std::size_t i) const { return copies_[i].has_value(); }
  bool any() const { return bytes_ > 0; }
  std::size_t bytes() const { return bytes_; }  // of the buffer the copies take
  // Where operand i's copy lies in a buffer that holds them.
  void* at(void* buffer, std::size_t i) const { return static_cast<char*>(buffer) + copies_[i]->offset; }
  // Enqueues on `stream` the copy of each operand added, from operands[i] into `buffer`, and
  // points operands[i] at its copy.
  Status enqueue(CUfunction function, std::array<const void*, 2>& operands, void* buffer, void* stream,
                 int sm_count) const;

 private:
  struct Copy {
    std::size_t offset = 0;
    PaddedCopyShape shape;
  };
  std::array<std::optional<Copy>, 2> copies_;
  std::size_t bytes_ = 0;
};

}  // namespace gemmtune::cuda
