// Problems and list configs for the wgmma config-space tests: f32 problems allow TF32, the
// only way the Hopper family takes f32.
#pragma once

#include "backends/cuda/wgmma_config_space.h"
#include "gemmtune/problem.h"

namespace gemmtune::cuda::testing {

inline Problem wgmma_problem(std::int64_t m, std::int64_t n, std::int64_t k, DType type, const char* layout = "nt") {
  ProblemSpec spec = Problem::create(m, n, k, type, layout)->spec();
  spec.allow_tf32 = type == DType::f32;
  return *Problem::create(spec);
}

// A row of a named list as a config for inputs of `type` (its block_k set, unscaled).
inline KernelConfig config_of(const WgmmaListEntry& e, DType type) {
  KernelConfig c = wgmma_list_config(e);
  c.block_k = wgmma_block_k(type);
  return c;
}

}  // namespace gemmtune::cuda::testing
