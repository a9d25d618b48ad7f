// What gemmtune's Hopper template can run: the map from a problem and config to the kernel's
// operands and instance, and the checks that say why a problem or config cannot run.
#include <algorithm>
#include <string>
#include <utility>

#include "kernel_dtype_codes.h"
#include "padded_operand.h"
#include "wgmma_config_space.h"
#include "wgmma_limits.h"
#include "wgmma_tensor_map.h"

namespace gemmtune::cuda {

using namespace wgmma_template;

// The instance with its shared memory fitted: the TMA-store epilogue's staging where the tile
// allows it, and the stages the config asks for.
WgmmaInstance wgmma_instance(const Problem& p, const KernelConfig& c) {
  WgmmaInstance w;
  const bool swap = c.swap_ab != 0;
  w.in_code = input_code(p.a_type());
  w.out_code = output_code(p.c_type());
  w.a_mn = swap ? p.b_layout() == Layout::row_major : p.a_layout() == Layout::col_major;
  w.b_mn = b_prime_n_major(p, swap);
  w.c_transposed = swap;
  w.block_m = c.block_m;
  w.block_n = c.block_n;
  w.stages = c.stages;
  w.consumers = consumers_of(c);
  w.pingpong = c.pingpong != 0;
  w.cluster_m = cluster(c.cluster_m);
  w.cluster_n = cluster(c.cluster_n);
  w.group_m = std::max(1, c.group_m);
  // The TMA-store epilogue where every call of this problem can take it (beta 0, an ldc TMA
  // addresses): such kernels keep only a slow fallback for an unaligned C pointer, the others
  // only the direct store, so no kernel compiles both (each costs a second of ptxas).
  w.c_tma = w.c_tma_possible() && p.beta() == 0.0 &&
            wgmma_output_map_limits(w.out_code, p.m(), p.n(), p.ldc()).empty();
  w.split_k = std::max(1, c.split_k);
  w.split_cluster = c.split_reduce == 1 && w.split_k > 1;
  w.stream_k = c.stream_k != 0;
  return w;
}

int wgmma_block_k(DType input) { return 128 / int(dtype_size(input)); }

WgmmaMapping wgmma_mapping(const Problem& p, const KernelConfig& c, const void* a, const void* b) {
  WgmmaMapping map;
  map.instance = wgmma_instance(p, c);
  // The user's A (m × k) and B as an n × k operand; swapped, A' = Bᵀ and B' = Aᵀ.
  // An operand whose rows TMA cannot address is read from a padded copy.
  const PaddedOperands padded = padded_operands(p);
  WgmmaOperand user_a = padded.a, user_b = padded.b;
  user_a.data = a;
  user_b.data = b;
  const bool swap = c.swap_ab != 0;
  map.a = swap ? user_b : user_a;
  map.b = swap ? user_a : user_b;
  map.a.tile_rows = c.block_m;
  map.b.tile_rows = c.block_n;
  map.m = swap ? p.n() : p.m();
  map.n = swap ? p.m() : p.n();
  return map;
}

Status check_wgmma_problem(const Problem& p) {
  const bool k_major = p.a_layout() == Layout::row_major && p.b_layout() == Layout::col_major;
  switch (p.a_type()) {
    case DType::f16:
    case DType::bf16:
      break;
    case DType::f32:
      if (!p.allow_tf32()) return unsupported("f32 without TF32 has no tensor-core path; cublaslt covers it");
      [[fallthrough]];
    case DType::s8:
      // wgmma reads 32-bit (TF32) and 8-bit operands from shared memory k-major only.
      if (!k_major) {
        return unsupported("wgmma reads " + std::string(dtype_name(p.a_type())) + " operands k-major only (layout nt); " +
                           "this problem is " + p.layout_letters());
      }
      break;
    default:
      return unsupported("no wgmma template for " + std::string(dtype_name(p.a_type())) + " inputs");
  }
  // TMA addresses each operand by its leading dimension in bytes (with k = 0 nothing is loaded:
  // C = beta·C); one it cannot address is read from a copy padded to one it can, up to a size.
  if (p.k() == 0) return Status::ok();
  const PaddedOperands padded = padded_operands(p);
  for (const auto& [name, read] : {std::pair{"A", padded.a}, std::pair{"B", padded.b}}) {
    std::string why = padded_copy_problem(read);
    if (why.empty()) why = wgmma_operand_problem(read);
    if (!why.empty()) return unsupported(std::string("TMA cannot load ") + name + ": " + why);
  }
  // Tile coordinates are 32-bit in the kernel and in TMA.
  if (std::max({p.m(), p.n(), p.k()}) >= (std::int64_t(1) << 31)) return unsupported("a dim is 2^31 or more");
  return Status::ok();
}

Status check_wgmma_config_shape(const KernelConfig& c, const Problem& p) {
  if (c.rank != 0 || c.kernel != 0 || c.micro_m != 0 || c.micro_n != 0 || c.threads != 0 || c.isa != 0) {
    return invalid_argument("rank, kernel, micro_m, micro_n, threads and isa are not wgmma fields");
  }
  const std::int64_t k_blocks = k_blocks_of(p);
  if (c.split_k < 0 || c.split_k > kMaxSplitK || (c.split_k > 1 && c.split_k > k_blocks)) {
    return unsupported("split_k must be in [1, " + text(kMaxSplitK) + "] and at most the " + text(k_blocks) +
                       " k-blocks of the problem");
  }
  if (c.stream_k != 0 && c.stream_k != 1) return invalid_argument("stream_k must be 0 or 1");
  if (c.stream_k == 1 && c.split_k > 1) {
    return unsupported("split_k " + text(c.split_k) + " and stream_k 1 are exclusive: both cut tiles along k and "
                       "finish them through the one workspace of partial sums and tile counters");
  }
  if (c.split_reduce != 0 && c.split_reduce != 1) return invalid_argument("reduce must be l2 or cluster");
  if (c.split_reduce == 1 && (c.split_k < 2 || c.pingpong != 0 || cluster(c.cluster_m) * cluster(c.cluster_n) > 1 ||
                              consumers_of(c) > 2)) {
    return unsupported("reduce=cluster makes the split_k slices (2 to " + text(kMaxSplitK) +
                       ") of a tile one cluster of CTAs: it takes no ping-pong, no cluster along m or n, and 1 or 2 "
                       "consumers");
  }
  if (c.warps != 8 && c.warps != 12 && c.warps != 16) {
    return unsupported("warps must be 8, 12 or 16 (a producer and 1 to 3 consumer warpgroups)");
  }
  if (c.pingpong != 0 && (c.pingpong != 1 || consumers_of(c) != 2)) {
    return unsupported("ping-pong takes 2 consumer warpgroups (pp=1, warps=12)");
  }
  if (c.swap_ab != 0 && c.swap_ab != 1) return invalid_argument("swap must be 0 or 1");
  if (c.block_k != wgmma_block_k(p.a_type())) {
    return unsupported("block_k must be " + text(wgmma_block_k(p.a_type())) + " for " +
                       std::string(dtype_name(p.a_type())) + " (one 128-byte swizzle row of k a stage)");
  }
  const int rows = rows_per_consumer(c);
  if (c.block_m <= 0 || c.block_m > kMaxBlock || rows % kSliceRows != 0 || rows == 0) {
    return unsupported("block_m " + text(c.block_m) + " must give each consumer whole 64-row wgmma slices (up to 256)");
  }
  if (c.block_n < kMinBlockN || c.block_n > kMaxBlock || c.block_n % 8 != 0) {
    return unsupported("block_n " + text(c.block_n) + " is not a wgmma n (8 to 256 in steps of 8)");
  }
  if (b_prime_n_major(p, c.swap_ab != 0) && c.block_n % kMnChunk != 0) {
    return unsupported("an n-major B tile is whole 64-column chunks; block_n is " + text(c.block_n));
  }
  if (p.a_type() == DType::s8 && c.block_n > 24 && c.block_n % 16 != 0) {
    return unsupported("s8 wgmma takes n = 8, 16, 24 or a multiple of 16; block_n is " + text(c.block_n));
  }
  if (c.stages < kMinStages || c.stages > kMaxStages) {
    return unsupported("stages must be in [" + text(kMinStages) + ", " + text(kMaxStages) + "]");
  }
  if (c.group_m < 1) return invalid_argument("group_m must be >= 1");
  for (std::int32_t extent : {c.cluster_m, c.cluster_n}) {
    if (extent < 0 || extent > 2) return unsupported("cluster extents must be 1 or 2");
  }
  if (cluster(c.cluster_m) * cluster(c.cluster_n) > 2) return unsupported("clusters of 2 CTAs at most");
  const int accumulators = rows / kSliceRows * c.block_n / 2;
  const int bound = consumers_of(c) == 3 ? kMaxAccumulatorsThreeConsumers : kMaxAccumulatorsPerThread;
  if (accumulators > bound) {
    return unsupported(text(accumulators) + " accumulators per consumer thread would spill (bound " + text(bound) +
                       " with " + text(consumers_of(c)) + " consumers)");
  }
  return Status::ok();
}

Status check_wgmma_limits(const KernelConfig& c, const Problem& p, const CudaInfo& device) {
  // wgmma, setmaxnreg and the sm_90a target exist on compute capability 9.0 only.
  if (device.cc_major != 9 || device.cc_minor != 0) {
    return unsupported("wgmma needs compute capability 9.0 (sm_90a); the device has " + text(device.cc_major) + "." +
                       text(device.cc_minor));
  }
  const WgmmaInstance w = wgmma_instance(p, c);
  // The stream-K division counts its S <= 2·clusters·KB k-blocks in 32 bits (wgmma_stream_k.cuh).
  if (w.stream_k && 2 * std::int64_t(device.sm_count) * k_blocks_of(p) >= (std::int64_t(1) << 31)) {
    return unsupported("stream-K counts the k-blocks it shares out in 32 bits: " + text(k_blocks_of(p)) +
                       " k-blocks a tile on " + text(device.sm_count) + " SMs are too many");
  }
  if (w.threads() > device.max_threads_per_block) {
    return unsupported(text(w.threads()) + " threads exceed the device's " + text(device.max_threads_per_block));
  }
  if (w.shared_bytes() > device.shared_memory_per_block_optin) {
    return unsupported("needs " + text(w.shared_bytes()) + " bytes of shared memory, the device allows " +
                       text(device.shared_memory_per_block_optin) + " per block");
  }
  return Status::ok();
}

}  // namespace gemmtune::cuda
