// The kernels compiled into the probe: the library's gemm_gemv.cuh templates instantiated here
// for each variant and dtype, and their launch plan (grid, block, shared memory) and launch.
#include "gemv_probe.cuh"

#include "../../../src/backends/cuda/kernels/gemm_gemv.cuh"

namespace gemv_probe {

// ---- The kernels compiled into the probe. ----

namespace {

// At most 256 threads, and one CTA an SM at the least: ptxas may take all 255 registers where
// a variant needs them (without the 1 it capped some at 64 and spilled).
template <int IN, int OUT, int M, int R, int U, int STAGES, bool A_SHARED>
__global__ void __launch_bounds__(256, 1)
    gemv_kernel(const typename GvIn<IN>::elem_t* a, const typename GvIn<IN>::elem_t* b, typename GvOut<OUT>::type* c,
                typename GvIn<IN>::acc_t* workspace, int* counters, long long m, long long n, long long k,
                long long lda, long long ldb, long long ldc, float alpha, float beta) {
  gv_gemv<IN, OUT, M, R, U, STAGES, A_SHARED>(a, b, c, workspace, counters, m, n, k, lda, ldb, ldc, alpha, beta,
                                              /*b_early=*/1);
}

template <Type IN, Type OUT, int M, int R, int U, int STAGES, bool A_SHARED>
Kernel kernel_of() {
  constexpr int kIn = IN == Type::f16 ? 0 : IN == Type::bf16 ? 1 : 3;
  constexpr int kOut = OUT == Type::f32 ? 0 : OUT == Type::f16 ? 1 : OUT == Type::bf16 ? 2 : 3;
  return Kernel{IN, OUT, M, R, U, STAGES, A_SHARED, (const void*)&gemv_kernel<kIn, kOut, M, R, U, STAGES, A_SHARED>};
}

// The variants the bench times: rows × steps per batch (loads in flight per lane), stages, where
// A comes from. R·M accumulators and R·8 (or M·8) converted values bound R.
template <Type IN, Type OUT, int M>
void add_variants(std::vector<Kernel>& list) {
  list.push_back(kernel_of<IN, OUT, M, 4, 2, 1, true>());
  list.push_back(kernel_of<IN, OUT, M, 4, 2, 2, true>());
  list.push_back(kernel_of<IN, OUT, M, 4, 1, 2, true>());
  list.push_back(kernel_of<IN, OUT, M, 2, 4, 1, true>());
  list.push_back(kernel_of<IN, OUT, M, 4, 2, 1, false>());
  list.push_back(kernel_of<IN, OUT, M, 4, 1, 2, false>());
  if constexpr (M <= 2) {
    list.push_back(kernel_of<IN, OUT, M, 8, 1, 1, true>());
    list.push_back(kernel_of<IN, OUT, M, 8, 2, 1, false>());
    list.push_back(kernel_of<IN, OUT, M, 8, 1, 2, false>());
  } else {
    list.push_back(kernel_of<IN, OUT, M, 2, 2, 2, true>());
  }
}

// Other dtypes: the same code but for the conversions; two variants (A shared, A through L1).
template <Type IN, Type OUT>
void add_dtype(std::vector<Kernel>& list) {
  list.push_back(kernel_of<IN, OUT, 1, 4, 2, 2, true>());
  list.push_back(kernel_of<IN, OUT, 1, 4, 1, 2, false>());
  list.push_back(kernel_of<IN, OUT, 4, 4, 2, 2, true>());
  list.push_back(kernel_of<IN, OUT, 4, 4, 1, 2, false>());
  list.push_back(kernel_of<IN, OUT, 16, 4, 2, 2, true>());
  list.push_back(kernel_of<IN, OUT, 16, 4, 1, 2, false>());
}

}  // namespace

const std::vector<Kernel>& all_kernels() {
  static const std::vector<Kernel> list = [] {
    std::vector<Kernel> l;
    add_variants<Type::bf16, Type::bf16, 1>(l);
    add_variants<Type::bf16, Type::bf16, 2>(l);
    add_variants<Type::bf16, Type::bf16, 4>(l);
    add_variants<Type::bf16, Type::bf16, 8>(l);
    add_variants<Type::bf16, Type::bf16, 16>(l);
    add_dtype<Type::bf16, Type::f32>(l);
    add_dtype<Type::bf16, Type::f16>(l);
    add_dtype<Type::f16, Type::f16>(l);
    add_dtype<Type::f16, Type::f32>(l);
    add_dtype<Type::f16, Type::bf16>(l);
    add_dtype<Type::s8, Type::s32>(l);
    return l;
  }();
  return list;
}

int rows_compiled_for(long long m) {
  int M = 1;
  while (M < m) M *= 2;
  return M;
}

// ---- Launching. ----
Device g_device;

Plan plan_launch(const Kernel& kn, const Problem& p, const Setting& s) {
  Plan plan;
  const long long steps = (p.k + kn.step_elements() - 1) / kn.step_elements();
  const long long slice_steps = (steps + s.split - 1) / s.split;
  const long long groups = (p.n + kn.R - 1) / kn.R;
  plan.shared = kn.a_shared ? std::size_t(kn.M * slice_steps * 512) : 0;
  if (plan.shared > g_device.shared_optin) {
    plan.why = "A's slice needs " + std::to_string(plan.shared) + " bytes of shared memory";
    return plan;
  }
  const std::size_t ws = std::size_t(s.split) * groups * kn.partials_per_group() * 4;
  if ((s.split > 1 && ws > g_device.workspace.bytes) || std::size_t(groups) * 4 > g_device.counters.bytes) {
    plan.why = "workspace too small";
    return plan;
  }
  CUDA_OK(cudaFuncSetAttribute(kn.fn, cudaFuncAttributeMaxDynamicSharedMemorySize, int(g_device.shared_optin)));
  CUDA_OK(cudaFuncSetAttribute(kn.fn, cudaFuncAttributePreferredSharedMemoryCarveout,
                               kn.a_shared ? int(cudaSharedmemCarveoutMaxShared) : int(cudaSharedmemCarveoutMaxL1)));
  CUDA_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&plan.ctas_per_sm, kn.fn, s.warps * 32, plan.shared));
  if (plan.ctas_per_sm == 0) {
    plan.why = "no CTA fits an SM";
    return plan;
  }
  const long long fill = std::max<long long>(1, (long long)g_device.sms * plan.ctas_per_sm / s.split);
  const long long rounds = (groups + fill * s.warps - 1) / (fill * s.warps);
  const long long balanced = (groups + rounds * s.warps - 1) / (rounds * s.warps);
  const long long grid_x = s.grid_x == kBalanced ? balanced : s.grid_x == kFill ? std::min(fill, groups) : s.grid_x;
  plan.grid = dim3(unsigned(grid_x), unsigned(s.split));
  plan.block = dim3(unsigned(s.warps * 32));
  plan.ok = true;
  return plan;
}

void launch(const Kernel& kn, const Plan& plan, const Problem& p, const void* a, const void* b, void* c, bool pdl) {
  void* workspace = g_device.workspace.ptr;
  void* counters = g_device.counters.ptr;
  long long m = p.m, n = p.n, k = p.k, lda = p.lda, ldb = p.ldb, ldc = p.ldc;
  float alpha = p.alpha, beta = p.beta;
  void* args[] = {&a, &b, &c, &workspace, &counters, &m, &n, &k, &lda, &ldb, &ldc, &alpha, &beta};
  cudaLaunchAttribute attr{};
  attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = plan.grid;
  config.blockDim = plan.block;
  config.dynamicSmemBytes = plan.shared;
  config.stream = g_device.stream;
  config.attrs = pdl ? &attr : nullptr;
  config.numAttrs = pdl ? 1 : 0;
  CUDA_OK(cudaLaunchKernelExC(&config, kn.fn, args));
}

}  // namespace gemv_probe
