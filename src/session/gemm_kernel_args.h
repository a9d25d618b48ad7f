// A GemmKernel run with every field of GemmArgs. Its public run() passes the pointers and the
// stream alone; a multi-kernel op's call on operands the stream has just copied onto the grid
// must also tell the kernel so (GemmArgs::operands_just_written).
#pragma once

#include "../core/backend.h"
#include "gemmtune/session.h"

namespace gemmtune {

// Kernels made by Session::kernel get all of `args`; any other GemmKernel its pointers.
Status run_with_args(GemmKernel& kernel, const GemmArgs& args);

}  // namespace gemmtune
