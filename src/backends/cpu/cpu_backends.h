// Factories of the CPU backends; src/backends/registry.cc puts them in their fixed order.
#pragma once

#include <memory>
#include <string>

#include "../../core/backend.h"

namespace gemmtune::cpu {

std::unique_ptr<Backend> make_cpu_template_backend(const CpuInfo& cpu);  // "cpu"
std::unique_ptr<Backend> make_amx_backend(const CpuInfo& cpu);           // "amx"
// For compiled_backends: whether this CPU runs the amx backend's kernels, and if not why.
std::string amx_availability_note();
std::unique_ptr<Backend> make_reference_backend();                       // "reference"
#ifdef GEMMTUNE_HAVE_ONEDNN
std::unique_ptr<Backend> make_onednn_backend(const CpuInfo& cpu);        // "onednn"
#endif
#ifdef GEMMTUNE_HAVE_OPENBLAS
std::unique_ptr<Backend> make_openblas_backend();                        // "openblas"
#endif
#ifdef GEMMTUNE_HAVE_LIBXSMM
std::unique_ptr<Backend> make_libxsmm_backend();                         // "libxsmm"
#endif

}  // namespace gemmtune::cpu
