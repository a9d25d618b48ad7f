// One CUTLASS 3 GEMM for Hopper (sm_90a), built by nvcc into a shared object that gemmtune
// loads at run time (backend "cutlass", cutlass_backend.cc). nvcc compiles this text with the
// user's CUTLASS include path and -D macros for the instance; the object exports the C functions
// below, so gemmtune itself never includes a CUTLASS header.
//
// Why a shared object and not an NVRTC cubin as for the other families: a CUTLASS 3 kernel's
// parameters (TMA descriptors, tile-scheduler state) are built by host code of the same
// template instantiation (GemmUniversalAdapter::initialize), so each instance needs its host
// side compiled too.
//
// Macros (all required):
//   GT_CUTLASS_IN      input type: 0 f16, 1 bf16, 3 s8
//   GT_CUTLASS_OUT     C's type: 0 f32, 1 f16, 2 bf16, 3 s32 (s8 only)
//   GT_CUTLASS_A_MN    1: A is m-contiguous (column-major m×k); 0: k-contiguous
//   GT_CUTLASS_B_MN    1: B is n-contiguous (row-major k×n); 0: k-contiguous (n×k rows)
//   GT_CUTLASS_BM, GT_CUTLASS_BN, GT_CUTLASS_BK   the CTA tile
//   GT_CUTLASS_CM, GT_CUTLASS_CN                  the thread-block cluster
//   GT_CUTLASS_PINGPONG  1: the ping-pong mainloop (two consumer warpgroups on alternate
//                        tiles); 0: cooperative (both on one tile)
//   GT_CUTLASS_STREAM_K  1: the stream-K tile scheduler (CUTLASS's heuristic picks data-parallel,
//                        split-k or stream-K for the problem); 0: the persistent scheduler
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <mutex>
#include <new>

#include <cute/tensor.hpp>
#include <cutlass/cutlass.h>
#include <cutlass/epilogue/collective/collective_builder.hpp>
#include <cutlass/gemm/collective/collective_builder.hpp>
#include <cutlass/gemm/device/gemm_universal_adapter.h>
#include <cutlass/gemm/dispatch_policy.hpp>
#include <cutlass/gemm/kernel/gemm_universal.hpp>
#include <cutlass/gemm/kernel/tile_scheduler.hpp>
#include <cutlass/util/packed_stride.hpp>

#include "cutlass_abi.h"

namespace gt_cutlass {

using namespace cute;

#if GT_CUTLASS_IN == 0
using ElementIn = cutlass::half_t;
#elif GT_CUTLASS_IN == 1
using ElementIn = cutlass::bfloat16_t;
#elif GT_CUTLASS_IN == 3
using ElementIn = int8_t;
#else
#error "GT_CUTLASS_IN: 0 f16, 1 bf16, 3 s8"
#endif

#if GT_CUTLASS_OUT == 0
using ElementOut = float;
#elif GT_CUTLASS_OUT == 1
using ElementOut = cutlass::half_t;
#elif GT_CUTLASS_OUT == 2
using ElementOut = cutlass::bfloat16_t;
#elif GT_CUTLASS_OUT == 3
using ElementOut = int32_t;
#else
#error "GT_CUTLASS_OUT: 0 f32, 1 f16, 2 bf16, 3 s32"
#endif

#if GT_CUTLASS_IN == 3
// Integer products add up exactly in s32, and alpha and beta are integers (1, and 0 or 1): an
// f32 epilogue would round sums past 2^24.
using ElementAccumulator = int32_t;
using ElementCompute = int32_t;
#else
using ElementAccumulator = float;
using ElementCompute = float;
#endif

// CUTLASS names the k-contiguous A row-major and the k-contiguous B (n×k rows) column-major.
using LayoutA = std::conditional_t<GT_CUTLASS_A_MN != 0, cutlass::layout::ColumnMajor, cutlass::layout::RowMajor>;
using LayoutB = std::conditional_t<GT_CUTLASS_B_MN != 0, cutlass::layout::RowMajor, cutlass::layout::ColumnMajor>;
using LayoutC = cutlass::layout::RowMajor;
// TMA moves 16-byte pieces: operands aligned to 16 bytes.
constexpr int kAlignIn = 16 / int(sizeof(ElementIn));
constexpr int kAlignOut = 16 / int(sizeof(ElementOut));

using TileShape = Shape<Int<GT_CUTLASS_BM>, Int<GT_CUTLASS_BN>, Int<GT_CUTLASS_BK>>;
using ClusterShape = Shape<Int<GT_CUTLASS_CM>, Int<GT_CUTLASS_CN>, _1>;

#if GT_CUTLASS_PINGPONG
using MainloopSchedule = cutlass::gemm::KernelTmaWarpSpecializedPingpong;
using EpilogueSchedule = cutlass::epilogue::TmaWarpSpecialized;
#else
using MainloopSchedule = cutlass::gemm::KernelTmaWarpSpecializedCooperative;
using EpilogueSchedule = cutlass::epilogue::TmaWarpSpecializedCooperative;
#endif
#if GT_CUTLASS_STREAM_K
using TileScheduler = cutlass::gemm::StreamKScheduler;
#else
using TileScheduler = cutlass::gemm::PersistentScheduler;
#endif

using CollectiveEpilogue = typename cutlass::epilogue::collective::CollectiveBuilder<
    cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, TileShape, ClusterShape,
    cutlass::epilogue::collective::EpilogueTileAuto, ElementAccumulator, ElementCompute, ElementOut, LayoutC,
    kAlignOut, ElementOut, LayoutC, kAlignOut, EpilogueSchedule>::CollectiveOp;

using CollectiveMainloop = typename cutlass::gemm::collective::CollectiveBuilder<
    cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, ElementIn, LayoutA, kAlignIn, ElementIn, LayoutB, kAlignIn,
    ElementAccumulator, TileShape, ClusterShape,
    cutlass::gemm::collective::StageCountAutoCarveout<static_cast<int>(
        sizeof(typename CollectiveEpilogue::SharedStorage))>,
    MainloopSchedule>::CollectiveOp;

using GemmKernel = cutlass::gemm::kernel::GemmUniversal<Shape<int, int, int, int>, CollectiveMainloop,
                                                        CollectiveEpilogue, TileScheduler>;
using Gemm = cutlass::gemm::device::GemmUniversalAdapter<GemmKernel>;

using StrideA = typename Gemm::GemmKernel::StrideA;
using StrideB = typename Gemm::GemmKernel::StrideB;
using StrideC = typename Gemm::GemmKernel::StrideC;

// One set of operand pointers with the adapter initialized for it (its parameters hold TMA
// descriptors of those addresses). Initializing costs tens of microseconds of host time, more
// than a small GEMM takes on the GPU, so a handle keeps the last kSlots sets: a layer called on
// the same buffers, and gemmtune's timing, which rotates up to 32 operand sets, initialize once.
struct Slot {
  const void* a = nullptr;
  const void* b = nullptr;
  void* c = nullptr;
  void* workspace = nullptr;
  unsigned long long last_use = 0;  // 0: empty
  typename Gemm::Arguments arguments;
  Gemm gemm;
};
constexpr int kSlots = 48;

// One problem's instance: its arguments without pointers, and the slots.
struct Handle {
  GtCutlassProblem problem;
  typename Gemm::Arguments arguments;
  Slot slots[kSlots];
  unsigned long long uses = 0;
  std::mutex mutex;
};

void say(char* why, int why_len, const char* text) {
  if (why != nullptr && why_len > 0) std::snprintf(why, std::size_t(why_len), "%s", text);
}

const char* status_text(cutlass::Status s) { return cutlassGetStatusString(s); }

typename Gemm::Arguments arguments_of(const GtCutlassProblem& p) {
  const int m = int(p.m), n = int(p.n), k = int(p.k);
  StrideA stride_a = cutlass::make_cute_packed_stride(StrideA{}, make_shape(m, k, 1));
  StrideB stride_b = cutlass::make_cute_packed_stride(StrideB{}, make_shape(n, k, 1));
  StrideC stride_c = cutlass::make_cute_packed_stride(StrideC{}, make_shape(m, n, 1));
  // The leading dimensions: the stride of the mode that is not contiguous.
#if GT_CUTLASS_A_MN
  get<1>(stride_a) = p.lda;
#else
  get<0>(stride_a) = p.lda;
#endif
#if GT_CUTLASS_B_MN
  get<1>(stride_b) = p.ldb;
#else
  get<0>(stride_b) = p.ldb;
#endif
  get<0>(stride_c) = p.ldc;
  typename Gemm::Arguments args{cutlass::gemm::GemmUniversalMode::kGemm,
                                {m, n, k, 1},
                                {nullptr, stride_a, nullptr, stride_b},
                                {{ElementCompute(p.alpha), ElementCompute(p.beta)}, nullptr, stride_c, nullptr, stride_c}};
  // The persistent grid's size: the SMs, and how many clusters of this kernel fit at once (asked
  // of the driver here once, rather than on every initialization).
  args.hw_info = cutlass::KernelHardwareInfo::make_kernel_hardware_info<GemmKernel>(p.device, p.sm_count);
  args.scheduler.max_swizzle_size = p.swizzle;
  return args;
}

}  // namespace gt_cutlass

extern "C" {

int gemmtune_cutlass_abi() { return GT_CUTLASS_ABI; }

int gemmtune_cutlass_create(const GtCutlassProblem* problem, void** handle, char* why, int why_len) {
  using namespace gt_cutlass;
  Handle* h = new (std::nothrow) Handle;
  if (h == nullptr) {
    say(why, why_len, "out of host memory");
    return 1;
  }
  h->problem = *problem;
  h->arguments = arguments_of(*problem);
  const cutlass::Status s = Gemm::can_implement(h->arguments);
  if (s != cutlass::Status::kSuccess) {
    say(why, why_len, status_text(s));
    delete h;
    return 1;
  }
  *handle = h;
  return 0;
}

unsigned long long gemmtune_cutlass_workspace_bytes(void* handle) {
  return gt_cutlass::Gemm::get_workspace_size(static_cast<gt_cutlass::Handle*>(handle)->arguments);
}

// Enqueues C = alpha·A·B + beta·C on `stream`. `workspace` holds the bytes
// gemmtune_cutlass_workspace_bytes asked for; the caller keeps two runs from using it at once.
int gemmtune_cutlass_run(void* handle, const void* a, const void* b, void* c, void* workspace, void* stream,
                         char* why, int why_len) {
  using namespace gt_cutlass;
  Handle* h = static_cast<Handle*>(handle);
  const cudaStream_t s = static_cast<cudaStream_t>(stream);
  std::lock_guard<std::mutex> lock(h->mutex);
  Slot* slot = nullptr;
  Slot* oldest = &h->slots[0];
  for (Slot& candidate : h->slots) {
    if (candidate.last_use != 0 && candidate.a == a && candidate.b == b && candidate.c == c &&
        candidate.workspace == workspace) {
      slot = &candidate;
      break;
    }
    if (candidate.last_use < oldest->last_use) oldest = &candidate;
  }
  if (slot == nullptr) {
    slot = oldest;
    slot->last_use = 0;
    slot->arguments = h->arguments;
    slot->arguments.mainloop.ptr_A = static_cast<const ElementIn*>(a);
    slot->arguments.mainloop.ptr_B = static_cast<const ElementIn*>(b);
    slot->arguments.epilogue.ptr_C = static_cast<const ElementOut*>(c);
    slot->arguments.epilogue.ptr_D = static_cast<ElementOut*>(c);
    // Builds the kernel's parameters (TMA descriptors) and clears the workspace's barriers.
    const cutlass::Status init = slot->gemm.initialize(slot->arguments, workspace, s);
    if (init != cutlass::Status::kSuccess) {
      say(why, why_len, status_text(init));
      return 1;
    }
    slot->a = a;
    slot->b = b;
    slot->c = c;
    slot->workspace = workspace;
  } else if (workspace != nullptr) {
    // Stream-K and split-k count their partial tiles in barriers of the workspace, which a run
    // leaves set: each run clears them again (an asynchronous memset on the stream).
    const cutlass::Status cleared = Gemm::GemmKernel::initialize_workspace(slot->arguments, workspace, s);
    if (cleared != cutlass::Status::kSuccess) {
      say(why, why_len, status_text(cleared));
      return 1;
    }
  }
  slot->last_use = ++h->uses;
  const cutlass::Status ran = slot->gemm.run(s);
  if (ran != cutlass::Status::kSuccess) {
    say(why, why_len, status_text(ran));
    return 1;
  }
  return 0;
}

void gemmtune_cutlass_destroy(void* handle) { delete static_cast<gt_cutlass::Handle*>(handle); }

}  // extern "C"
