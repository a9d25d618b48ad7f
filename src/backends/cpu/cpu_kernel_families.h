// gemmtune's own CPU kernel families, one row each: the kernel a config names, the register
// tiles it is compiled for, the rule that says which problems and configs it can run, and the
// rule that offers its configs. Three users read the rows:
//  - each ISA level's kernel lookup instantiates a row's tiles (cpu_kernel_impl.h);
//  - the backend's can_implement applies its rule (cpu_template_backend.cc);
//  - the config space calls its offer, in the rows' order (cpu_config_space.cc).
// A new family is its kernel header under kernels/, its KernelOf case (cpu_kernel_impl.h), its
// rule and offer, and a row here.
//
// The rules' and offers' bodies live in files outside the kernels' hash (cpu_kernel_rules.cc,
// cpu_config_space.cc; CMakeLists.txt): which problems and configs a family takes decides what
// is timed, not the code of any kernel, so changing it does not retire stored picks or models.
#pragma once

#include <span>
#include <string>

#include "cpu_kernels.h"
#include "gemmtune/config.h"
#include "gemmtune/problem.h"

namespace gemmtune::cpu {

struct CpuKernelFamily;

// What an offer rule sees: the problem as the kernels see it, the thread count and ISA being
// offered, and add(), which keeps a config that the limits and the family's rule pass
// (defined in cpu_config_space.h).
struct Offer;

// Why the family cannot run problem p with config c (`lanes` 32-bit lanes a vector of c's
// ISA), or "" where it can. `strides` are p's as the kernels read them (cpu_strides).
using CannotRun = std::string (*)(const Problem& p, const CpuGemmParams& strides, const KernelConfig& c, int lanes);
// Adds the family's configs for a problem (Offer::add), none where another family serves it.
using OfferRule = void (*)(const Offer& offer, const CpuKernelFamily& family);

struct CpuKernelFamily {
  int kernel;
  // The tiles compiled, as tile_key writes them; f32_tiles only for f32 inputs and output.
  std::span<const MicroTile> tiles, f32_tiles;
  CannotRun cannot_run;
  // Null for the packed family: the config space scales its named lists (packed_configs).
  OfferRule offer;
};

// The rules (cpu_kernel_rules.cc).
std::string packed_cannot_run(const Problem&, const CpuGemmParams&, const KernelConfig&, int lanes);
std::string tile_cannot_run(const Problem&, const CpuGemmParams&, const KernelConfig&, int lanes);
std::string pairs_cannot_run(const Problem&, const CpuGemmParams&, const KernelConfig&, int lanes);
std::string rows_cannot_run(const Problem&, const CpuGemmParams&, const KernelConfig&, int lanes);
std::string rows_dots_cannot_run(const Problem&, const CpuGemmParams&, const KernelConfig&, int lanes);
std::string stream_cannot_run(const Problem&, const CpuGemmParams&, const KernelConfig&, int lanes);
std::string axpy_cannot_run(const Problem&, const CpuGemmParams&, const KernelConfig&, int lanes);
std::string dot_cannot_run(const Problem&, const CpuGemmParams&, const KernelConfig&, int lanes);
std::string columns_cannot_run(const Problem&, const CpuGemmParams&, const KernelConfig&, int lanes);

// The offers (cpu_config_space.cc).
void offer_tile(const Offer&, const CpuKernelFamily&);
void offer_pairs(const Offer&, const CpuKernelFamily&);
void offer_rows(const Offer&, const CpuKernelFamily&);
void offer_rows_dots(const Offer&, const CpuKernelFamily&);
void offer_stream(const Offer&, const CpuKernelFamily&);
void offer_axpy(const Offer&, const CpuKernelFamily&);
void offer_dot(const Offer&, const CpuKernelFamily&);
void offer_columns(const Offer&, const CpuKernelFamily&);

// In the order the config space offers the direct families' configs, which the default
// space's cap keeps; the packed family's come after them.
inline constexpr CpuKernelFamily kCpuKernelFamilies[] = {
    {kKernelPacked, kMicroTiles, {}, packed_cannot_run, nullptr},
    {kKernelTile, kTileShapes, {}, tile_cannot_run, offer_tile},
    {kKernelPairs, kPairsTiles, {}, pairs_cannot_run, offer_pairs},
    {kKernelRows, kDirectTiles, kDirectF32Tiles, rows_cannot_run, offer_rows},
    {kKernelRowsDots, kDirectTiles, kDirectF32Tiles, rows_dots_cannot_run, offer_rows_dots},
    {kKernelStream, kStreamTiles, {}, stream_cannot_run, offer_stream},
    {kKernelAxpy, kAxpyTiles, {}, axpy_cannot_run, offer_axpy},
    {kKernelDot, kDotTiles, {}, dot_cannot_run, offer_dot},
    {kKernelColumns, kColumnsTiles, {}, columns_cannot_run, offer_columns},
};

// The row of `kernel`, or null where no CPU family has that kernel.
constexpr const CpuKernelFamily* cpu_kernel_family(int kernel) {
  for (const CpuKernelFamily& family : kCpuKernelFamilies) {
    if (family.kernel == kernel) return &family;
  }
  return nullptr;
}

}  // namespace gemmtune::cpu
