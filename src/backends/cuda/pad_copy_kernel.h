// The pad-copy kernel (kernels/pad_copy.cuh): an operand's lines copied into a buffer of wider
// pitch, for families whose kernels read through TMA (padded_operand.h).
#pragma once

#include <cuda.h>

#include <string>
#include <string_view>
#include <vector>

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

// The widest chunk (8, 4, 2 or 1 bytes) the kernel copies `shape` in from `caller`: it must
// divide the caller's pitch, its line and its address (the copy's are multiples of 16; a caller
// pitch of 16 bytes needs no copy).
int pad_copy_chunk_bytes(const PaddedCopyShape& shape, const void* caller);

// Enqueues the copy of `caller` into `copy` on `stream`.
Status enqueue_pad_copy(CUfunction function, const PaddedCopyShape& shape, const void* caller, void* copy,
                        void* stream, int sm_count);

}  // namespace gemmtune::cuda
