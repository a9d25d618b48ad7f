// Whether gemmtune's own GPU kernels launch overlapped with the previous kernel in the stream
// (programmatic dependent launch, compute capability 9.0 and up): environment GEMMTUNE_PDL.
//
// Back to back, a kernel that launches overlapped sets up (barriers, tensor maps, its first
// weights with `weights`) while the previous one drains, and waits (griddepcontrol.wait) for
// it to finish before it touches the memory that kernel may write.
#pragma once

#include <string_view>

#include "gemmtune/status.h"

namespace gemmtune::cuda {

enum class LaunchOverlap {
  off,      // plain launches: a kernel starts once the previous one has finished
  on,       // overlapped; every operand is read after the previous kernel has finished (default)
  weights,  // overlapped, and B (the weights) starts loading before the previous kernel has
            // finished: only where no kernel just before on the stream writes B
};

// Reads a GEMMTUNE_PDL value: "off", "on" or "weights" (empty or unset: "on"). Anything else is
// invalid_argument naming the variable and the values it takes.
Result<LaunchOverlap> parse_launch_overlap(const char* value);

// The process's setting, read from the environment once. An invalid value reads as `on` here;
// detect_device refuses it, so no session on a CUDA device runs with it.
LaunchOverlap launch_overlap();
Status check_launch_overlap_env();

std::string_view launch_overlap_name(LaunchOverlap overlap);

}  // namespace gemmtune::cuda
