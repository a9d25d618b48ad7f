// The probe's timing: each config beside cuBLASLt's first heuristic pick on the same shapes,
// median times over back-to-back launches with the inputs rotated past the L2.
#include <cublasLt.h>

#include <algorithm>
#include <cmath>

#include "wgmma_probe.h"

namespace wgmma_probe {

// ---- timing ----

namespace {

// cuBLASLt's first heuristic algorithm for C = A·Bᵀ (row-major), the call torch.mm makes.
struct Cublas {
  cublasLtHandle_t handle = nullptr;
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t la = nullptr, lb = nullptr, lc = nullptr;
  cublasLtMatmulAlgo_t algo{};
  void* workspace = nullptr;
  std::size_t workspace_bytes = 32 << 20;
  bool integer = false;

  Cublas(long long m, long long n, long long k, Type in) {
    integer = in == Type::s8;
    cublasLtCreate(&handle);
    const cudaDataType_t ab = in == Type::bf16 ? CUDA_R_16BF : in == Type::f16 ? CUDA_R_16F : CUDA_R_8I;
    const cudaDataType_t ct = integer ? CUDA_R_32I : ab;
    cublasLtMatmulDescCreate(&desc, integer ? CUBLAS_COMPUTE_32I : CUBLAS_COMPUTE_32F, integer ? CUDA_R_32I : CUDA_R_32F);
    cublasOperation_t t = CUBLAS_OP_T, nop = CUBLAS_OP_N;
    cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &t, sizeof t);
    cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB, &nop, sizeof nop);
    // Column-major view: Cᵀ (n×m) = op(W as k×n)ᵀ · (A as k×m).
    cublasLtMatrixLayoutCreate(&la, ab, k, n, k);
    cublasLtMatrixLayoutCreate(&lb, ab, k, m, k);
    cublasLtMatrixLayoutCreate(&lc, ct, n, m, n);
    cudaMalloc(&workspace, workspace_bytes);
    cublasLtMatmulPreference_t pref;
    cublasLtMatmulPreferenceCreate(&pref);
    cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace_bytes,
                                         sizeof workspace_bytes);
    cublasLtMatmulHeuristicResult_t result{};
    int found = 0;
    cublasLtMatmulAlgoGetHeuristic(handle, desc, la, lb, lc, lc, pref, 1, &result, &found);
    if (found == 0) {
      std::fprintf(stderr, "cuBLASLt found no algorithm\n");
      std::exit(2);
    }
    algo = result.algo;
    cublasLtMatmulPreferenceDestroy(pref);
  }
  void run(const void* a, const void* w, void* c, cudaStream_t stream) {
    float alpha = 1, beta = 0;
    int ialpha = 1, ibeta = 0;
    const void* pa = integer ? (const void*)&ialpha : &alpha;
    const void* pb = integer ? (const void*)&ibeta : &beta;
    cublasLtMatmul(handle, desc, pa, w, la, a, lb, pb, c, lc, c, lc, &algo, workspace, workspace_bytes, stream);
  }
};

}  // namespace

// Median over `samples` samples of `reps` back-to-back calls, inputs rotated over `sets` copies.
template <class Fn>
static double time_us(Fn&& fn, int sets, int reps = 20, int samples = 15) {
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  for (int i = 0; i < 3; ++i) fn(i % sets);
  std::vector<double> times;
  for (int s = 0; s < samples; ++s) {
    cudaEventRecord(start);
    for (int r = 0; r < reps; ++r) fn((s * reps + r) % sets);
    cudaEventRecord(stop);
    cudaEventSynchronize(stop);
    float ms = 0;
    cudaEventElapsedTime(&ms, start, stop);
    times.push_back(ms * 1000.0 / reps);
  }
  CHECK_CUDA(cudaGetLastError());
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

std::vector<std::vector<long long>> parse_shapes(const std::string& text) {
  std::vector<std::vector<long long>> shapes;
  std::stringstream s(text);
  for (std::string item; std::getline(s, item, ',');) {
    long long m, n, k;
    if (std::sscanf(item.c_str(), "%lldx%lldx%lld", &m, &n, &k) != 3) {
      std::fprintf(stderr, "bad shape %s\n", item.c_str());
      std::exit(2);
    }
    shapes.push_back({m, n, k});
  }
  return shapes;
}

void compile_for_shapes(Type in, const std::vector<std::vector<long long>>& shapes, const std::vector<Config>& configs) {
  const Type out = in == Type::s8 ? Type::s32 : in;
  std::vector<WgmmaInstance> all;
  int dummy;
  for (const auto& sh : shapes) {
    for (const Config& c : configs) all.push_back(map_problem(Shape{sh[0], sh[1], sh[2], in, out}, c, &dummy, &dummy).instance);
  }
  compile_all(all, true);
}

ShapeTimes time_shape(Type in, const std::vector<long long>& sh, const std::vector<Config>& configs) {
  const Type out = in == Type::s8 ? Type::s32 : in;
  Shape p{sh[0], sh[1], sh[2], in, out};
  // Enough input sets that they overrun the 50 MB L2 twice.
  const double set_bytes = double(p.m * p.k + p.n * p.k) * bytes_of(in);
  const int sets = int(std::clamp(std::ceil(100e6 / set_bytes), 1.0, 8.0));
  std::vector<void*> as(sets), bs(sets);
  std::mt19937 rng(7);
  for (int i = 0; i < sets; ++i) {
    auto ha = random_bytes(in, p.m * p.k, rng), hb = random_bytes(in, p.n * p.k, rng);
    CHECK_CUDA(cudaMalloc(&as[i], ha.size()));
    CHECK_CUDA(cudaMalloc(&bs[i], hb.size()));
    CHECK_CUDA(cudaMemcpy(as[i], ha.data(), ha.size(), cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(bs[i], hb.data(), hb.size(), cudaMemcpyHostToDevice));
  }
  void* c;
  CHECK_CUDA(cudaMalloc(&c, p.m * p.n * bytes_of(out)));
  Cublas blas(p.m, p.n, p.k, in);
  // Interleave: peer, then each config, twice over, keeping each one's lower median.
  ShapeTimes times;
  times.configs.assign(configs.size(), 1e30);
  for (int round = 0; round < 2; ++round) {
    times.peer = std::min(times.peer, time_us([&](int i) { blas.run(as[i], bs[i], c, nullptr); }, sets));
    for (std::size_t ci = 0; ci < configs.size(); ++ci) {
      std::vector<Mapping> maps;
      for (int i = 0; i < sets; ++i) maps.push_back(map_problem(p, configs[ci], as[i], bs[i]));
      std::string why;
      if (!launch(maps[0], c, p.ldc(), 1, 0, p.k, nullptr, &why)) continue;
      const double t = time_us([&](int i) { launch(maps[i], c, p.ldc(), 1, 0, p.k, nullptr); }, sets);
      times.configs[ci] = std::min(times.configs[ci], t);
    }
  }
  for (int i = 0; i < sets; ++i) {
    cudaFree(as[i]);
    cudaFree(bs[i]);
  }
  cudaFree(c);
  return times;
}

std::string shape_name(const std::vector<long long>& sh) {
  char name[64];
  std::snprintf(name, sizeof name, "%lldx%lldx%lld", sh[0], sh[1], sh[2]);
  return name;
}

int run_bench(Type in, const std::string& shapes_text, const std::vector<Config>& configs) {
  const std::vector<std::vector<long long>> shapes = parse_shapes(shapes_text);
  compile_for_shapes(in, shapes, configs);
  for (const Config& c : configs) {  // how many clusters the device runs at once
    if (c.cluster_m * c.cluster_n == 1) continue;
    int dummy;
    const Mapping map = map_problem(Shape{4096, 4096, 4096, in, in == Type::s8 ? Type::s32 : in}, c, &dummy, &dummy);
    std::printf("%s: at most %d clusters of %d at once\n", c.name().c_str(),
                g_modules.at(instance_key(map.instance)).clusters, c.cluster_m * c.cluster_n);
  }
  std::printf("%-18s %10s", "shape", "cublas_us");
  for (const Config& c : configs) std::printf(" %22s", c.name().c_str());
  std::printf("   best ratio\n");
  for (const auto& sh : shapes) {
    const ShapeTimes times = time_shape(in, sh, configs);
    const double flops = 2.0 * sh[0] * sh[1] * sh[2];
    std::printf("%-18s %10.1f", shape_name(sh).c_str(), times.peer);
    double fastest = 1e30;
    for (double t : times.configs) {
      std::printf(" %14.1f (%4.0fT)", t, flops / t / 1e6);
      fastest = std::min(fastest, t);
    }
    std::printf("   %.3f  (cublas %4.0fT)\n", times.peer / fastest, flops / times.peer / 1e6);
  }
  return 0;
}

}  // namespace wgmma_probe
