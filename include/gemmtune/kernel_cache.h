// Where gemmtune keeps the GPU kernels it compiles (cubins, and CUTLASS's objects), so that a
// later process, or a deployed program with a bundle, compiles nothing it compiled before.
#pragma once

#include <string>
#include <vector>

namespace gemmtune {

// The kernel cache's directories: $GEMMTUNE_CUBIN_CACHE as DIR[:DIR...], else
// $XDG_CACHE_HOME/gemmtune/cubins, else ~/.cache/gemmtune/cubins; empty when none can be named
// (no HOME); a list of empty entries alone (":") names none, and the defaults apply. Give
// absolute paths: gemmtune does not expand `~` (a shell does in an assignment; systemd, Docker
// and Python's os.environ do not). The first is where compiled kernels are written; the others
// are only read. A
// kernel found in one of those is copied into the first, which so ends up holding every kernel
// the process used: a deployed program reads a bundle installed read-only after its own cache
// (GEMMTUNE_CUBIN_CACHE=$HOME/.cache/gemmtune/cubins:/opt/app/bundle/cubins), and
// `gemmtune bundle create` fills the bundle from the user's cache instead of compiling again.
std::vector<std::string> kernel_cache_dirs();

}  // namespace gemmtune
