// What a multi-kernel op needs of its sub-kernels beyond GemmKernel's public face: a run with
// every field of GemmArgs (its public run() passes the pointers and the stream alone; a call on
// operands the stream has just copied onto the grid must tell the kernel so), and the grid its
// family was tuned at.
#pragma once

#include <cstdint>

#include "../core/backend.h"
#include "gemmtune/session.h"

namespace gemmtune {

// Kernels made by Session::kernel get all of `args`; any other GemmKernel its pointers.
Status run_with_args(GemmKernel& kernel, const GemmArgs& args);
// Its Kernel::operand_grid_mask (0 for a GemmKernel not made by Session::kernel).
std::uintptr_t operand_grid_mask(const GemmKernel& kernel);

}  // namespace gemmtune
