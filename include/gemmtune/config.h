// One point of a kernel family's tuning space. A config changes speed, never results beyond
// rounding: any config a backend accepts computes the same product.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gemmtune/status.h"

namespace gemmtune {

struct KernelConfig {
  // --- fields shared by the tiled families (CPU templates, CUDA templates) ---
  // Rows of C one block computes. CPU: rows of A kept packed in L2 (the GotoBLAS "mc");
  // GPU: the thread block's tile height.
  std::int32_t block_m = 0;
  // Columns of C one block computes. CPU: columns of B kept packed in L3 ("nc").
  std::int32_t block_n = 0;
  // Depth of one step over k. CPU: the packed panels' depth, sized so a micro-panel of B
  // stays in L1 ("kc"); GPU: the k extent of one shared-memory stage.
  std::int32_t block_k = 0;
  // GPU: shared-memory pipeline depth (loads in flight while the tensor cores work).
  std::int32_t stages = 0;
  // GPU: warps per thread block.
  std::int32_t warps = 0;
  // GPU (skinny family): groups of a block's warps that split its k among them, each summing
  // a run of k for the same rows of C, then adding up in shared memory. 0 or 1: none.
  std::int32_t k_warps = 0;
  // GPU: block rows swept together so the blocks running at once share B tiles in L2.
  std::int32_t group_m = 0;
  // Slices k is split into, each summed separately and reduced after; helps skinny shapes
  // fill the machine. 0 or 1: no split.
  std::int32_t split_k = 0;
  // GPU (Hopper): 1 shares the k-blocks of the tiles past the grid's last full wave out evenly
  // among all its blocks (stream-K), so that a partial last wave does not leave SMs idle;
  // pieces of a tile are summed through a workspace. 0: each tile is one block's.
  std::int32_t stream_k = 0;
  // GPU (Hopper), with split_k > 1: where the slices' partial sums meet (see
  // split_reduce_name). 0 "l2": in a workspace in global memory, added up by whichever slice
  // finishes last; 1 "cluster": the slices are the thread blocks of one cluster, and the
  // partial sums meet in the first one's shared memory (distributed shared memory).
  std::int32_t split_reduce = 0;
  // GPU (Hopper): thread blocks of a cluster along m and along n. The blocks of a cluster row
  // share one A tile and those of a cluster column one B tile, loaded once and multicast to
  // each, which halves the L2 reads of that operand. 0 or 1: no cluster along that dim.
  std::int32_t cluster_m = 0;
  std::int32_t cluster_n = 0;
  // GPU (Hopper): 1 computes Cᵀ = Bᵀ·Aᵀ, so that a small m becomes the kernel's n (wgmma
  // takes n from 8 up, but m only in 64-row slices).
  std::int32_t swap_ab = 0;
  // GPU (Hopper): 1 lets the consumer warpgroups take whole tiles in turn (ping-pong), so one
  // writes its tile while the other's tensor-core work runs; 0 splits each tile's rows among
  // them (cooperative).
  std::int32_t pingpong = 0;

  // --- CPU template fields ---
  // Register tile: rows and columns of C one micro-kernel call keeps in vector registers.
  std::int32_t micro_m = 0;
  std::int32_t micro_n = 0;
  // Threads the kernel runs on; 1 avoids the fork/join cost that dominates small products.
  std::int32_t threads = 0;
  // Vector instruction set of the CPU kernels (see cpu_isa_name): 0 generic, 1 AVX2,
  // 2 AVX-512, 3 AVX-512 + VNNI (int8 dot products), 4 AVX-512 + VNNI + BF16 (bf16 dot products).
  std::int32_t isa = 0;
  // amx: 1 copies each block of the operand the tiles read along k onto whole 64-byte lines,
  // slice by slice of k, where its rows are off their lines (then each tile row would span two
  // lines); 0 reads it in place.
  std::int32_t copy_r = 0;

  // --- backend-specific ---
  // cuBLASLt: the 1-based rank of the heuristic result the config runs. A rank names no
  // algorithm of its own (another problem's rank 1 is another algorithm), so it is a number
  // and not a kernel.
  std::int32_t rank = 0;
  // Which of its family's kernels the config runs (see kernel_name and the kKernel* values
  // below); 0, not printed, is the family's main kernel.
  std::int32_t kernel = 0;

  // --- skinny family (backend "skinny") ---
  // Where A comes from (see a_source_name). gemv: 1 reads A through L1 where every warp of the SM
  // finds it, 0 stages A's slice of k in shared memory once per CTA. The tensor-core kernel with
  // k_warps > 1: 0 loads each warp's A fragments into registers with its batch of B, 2 stages
  // them in a shared-memory ring of the warp's own (frees the registers at m = 32–64).
  std::int32_t a_source = 0;
  // gemv: how many CTAs along n (see grid_name): 0 one wave that gives every warp the same number of
  // row groups (balanced); 1 as many CTAs as the SMs hold at once (fill).
  std::int32_t grid = 0;

  auto operator<=>(const KernelConfig&) const = default;

  // Fields that are set, in declaration order: "bm=96 bn=2048 bk=256 mm=6 mn=32 thr=2 isa=avx512".
  // "-" when none is set. parse() reads it back.
  std::string to_string() const;
  static Result<KernelConfig> parse(std::string_view text);

  // Every field, set or not, as (short name, value) in declaration order: the names
  // to_string() prints. Code that must stay generic over the fields (the cost model's
  // features) reads them here, so a new field reaches it without further edits.
  std::vector<std::pair<std::string_view, std::int32_t>> fields() const;
  static std::vector<std::string_view> field_names();
};

std::string_view cpu_isa_name(std::int32_t isa);
// The level cpu_isa_name names ("avx2": 1); -1 for a name of none.
std::int32_t cpu_isa_from_name(std::string_view name);
std::string_view kernel_name(std::int32_t kernel);      // "main", "gemv", "rows", … "any_reduction"
std::string_view a_source_name(std::int32_t a_source);  // "smem", "l1", "group"
std::string_view grid_name(std::int32_t grid);          // "balanced", "fill"
std::string_view split_reduce_name(std::int32_t split_reduce);  // "l2", "cluster"

// KernelConfig::kernel values: one list for every family, so that a name means one kernel
// wherever it appears ("kernel=stream"). 0 is each family's main kernel: the skinny family's
// tensor-core kernel, the cpu backend's packed kernel, oneDNN's matmul primitive, libxsmm's
// kernel looked up once; it is not printed, and parse() reads it by any of those names
// ("kernel=mma", "kernel=packed", "primitive", "once", "main"). The cpu kernels are described
// in src/backends/cpu/cpu_kernels.h.
inline constexpr std::int32_t kKernelMain = 0;
inline constexpr std::int32_t kKernelMma = kKernelMain;     // skinny: tensor cores
inline constexpr std::int32_t kKernelGemv = 1;              // skinny: CUDA-core dots for m ≤ 8
inline constexpr std::int32_t kKernelPacked = kKernelMain;  // cpu: GotoBLAS packing
inline constexpr std::int32_t kKernelRows = 2;              // cpu direct kernels, unpacked:
inline constexpr std::int32_t kKernelDot = 3;
inline constexpr std::int32_t kKernelColumns = 4;
inline constexpr std::int32_t kKernelTile = 5;
inline constexpr std::int32_t kKernelStream = 6;
inline constexpr std::int32_t kKernelAxpy = 7;
inline constexpr std::int32_t kKernelPairs = 8;
inline constexpr std::int32_t kKernelRowsDots = 9;
inline constexpr std::int32_t kKernelSgemm = 10;         // onednn: dnnl_sgemm, the shape at every call
inline constexpr std::int32_t kKernelPerCall = 11;       // libxsmm: its lookup at every call
inline constexpr std::int32_t kKernelFaultAddress = 12;  // mma, tests only: an illegal address
inline constexpr std::int32_t kKernelFaultSpin = 13;     // mma, tests only: a kernel that never ends
inline constexpr std::int32_t kKernelPadded = 14;        // cublaslt: on padded copies of operands
inline constexpr std::int32_t kKernelAnyReduction = 15;  // cublaslt as called: any split-k reduction

// A config as a backend of an older gemmtune stored it, in today's fields: before 2026-11-28 one
// number, `algo`, was the cpu backend's kernel (0 packed, 1 rows, … 8 rows-dots), oneDNN's and
// libxsmm's second kernel (1), the mma family's fault kernels (9001, 9002) and cuBLASLt's rank.
// Text without `algo` comes back unchanged. The store, the lookup tables and the sweep files
// read their configs through it, so nothing stored before the change is lost.
std::string upgrade_config_text(std::string_view backend, std::string_view text);

// KernelConfig::a_source values.
inline constexpr std::int32_t kASourceSmem = 0;
inline constexpr std::int32_t kASourceL1 = 1;
inline constexpr std::int32_t kASourceGroup = 2;

}  // namespace gemmtune
