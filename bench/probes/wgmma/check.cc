// The probe's correctness checks: a plain reference kernel (float64 sums, compiled by NVRTC
// beside the template's instances) and every element of C compared against it within a bound.
#include <cmath>
#include <cstring>

#include "wgmma_probe.h"

namespace wgmma_probe {

// ---- reference ----

static const char* kReferenceSource = R"(
extern "C" __global__ void reference(const void* a, const void* b, double* ref, double* mag, long long m, long long n,
                                     long long k, long long lda, long long ldb, int a_row, int b_col, int in) {
  long long i = blockIdx.y * 16 + threadIdx.y, j = blockIdx.x * 16 + threadIdx.x;
  if (i >= m || j >= n) return;
  double sum = 0, abs_sum = 0;
  for (long long p = 0; p < k; ++p) {
    long long ia = a_row ? i * lda + p : p * lda + i;
    long long ib = b_col ? j * ldb + p : p * ldb + j;
    double x, y;
    if (in == 3) { x = ((const signed char*)a)[ia]; y = ((const signed char*)b)[ib]; }
    else if (in == 2) { x = ((const float*)a)[ia]; y = ((const float*)b)[ib]; }
    else if (in == 1) {
      x = __uint_as_float(((unsigned)((const unsigned short*)a)[ia]) << 16);
      y = __uint_as_float(((unsigned)((const unsigned short*)b)[ib]) << 16);
    } else {
      unsigned short hx = ((const unsigned short*)a)[ia], hy = ((const unsigned short*)b)[ib];
      float fx, fy;
      asm("cvt.f32.f16 %0, %1;" : "=f"(fx) : "h"(hx));
      asm("cvt.f32.f16 %0, %1;" : "=f"(fy) : "h"(hy));
      x = fx; y = fy;
    }
    sum += x * y;
    abs_sum += fabs(x * y);
  }
  ref[i * n + j] = sum;
  mag[i * n + j] = abs_sum;
}
)";

static CUfunction g_reference = nullptr;

void load_reference() {
  Compiled r = nvrtc_compile(kReferenceSource, {"--gpu-architecture=sm_90a", "-std=c++17"});
  if (!r.ok) {
    std::printf("reference failed: %s\n", r.log.c_str());
    std::exit(1);
  }
  CUmodule module;
  CHECK_CU(cuModuleLoadData(&module, r.cubin.data()));
  CHECK_CU(cuModuleGetFunction(&g_reference, module, "reference"));
}

// Unit roundoff of an output type, and of the inputs as the tensor cores read them.
static double output_unit(Type t) {
  return t == Type::bf16 ? std::ldexp(1.0, -8) : t == Type::f16 ? std::ldexp(1.0, -11) : std::ldexp(1.0, -24);
}

// Checks one problem on one config: fresh random inputs, C poisoned (beta = 0) or random, every
// element compared within |err| ≤ 2·k·u_acc·Σ|a·b| (+ TF32's input rounding) + u_out·|ref|.
// With `launches` > 1 the kernel runs again on C set back to its first contents, and the last
// run is checked: state a launch leaves behind (split-k and stream-K tile counters) must not
// change the next one's result.
// Returns "" when right, "skip: why" when the config cannot map the problem, else the first wrong element.
static std::string check_one(const Shape& p, const Config& cfg, std::mt19937& rng, int launches = 1) {
  const long long a_count = p.m * p.k, b_count = p.k * p.n, c_count = p.m * p.n;
  auto ha = random_bytes(p.in, a_count, rng), hb = random_bytes(p.in, b_count, rng);
  std::vector<unsigned char> hc(std::size_t(c_count) * bytes_of(p.out));
  if (p.beta != 0) {
    hc = random_bytes(p.out, c_count, rng);
  } else {
    std::memset(hc.data(), 0xFF, hc.size());  // NaN / -1 poison: every element must be written
  }
  void *da, *db, *dc;
  double *dref, *dmag;
  CHECK_CUDA(cudaMalloc(&da, ha.size() + 16));
  CHECK_CUDA(cudaMalloc(&db, hb.size() + 16));
  CHECK_CUDA(cudaMalloc(&dc, hc.size()));
  CHECK_CUDA(cudaMalloc(reinterpret_cast<void**>(&dref), c_count * 8));
  CHECK_CUDA(cudaMalloc(reinterpret_cast<void**>(&dmag), c_count * 8));
  CHECK_CUDA(cudaMemcpy(da, ha.data(), ha.size(), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(db, hb.data(), hb.size(), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(dc, hc.data(), hc.size(), cudaMemcpyHostToDevice));
  Mapping map = map_problem(p, cfg, da, db);
  compile_all({map.instance}, true);
  std::string why;
  std::string result;
  bool launched = launch(map, dc, p.ldc(), p.alpha, p.beta, p.k, nullptr, &why);
  for (int again = 1; again < launches && launched; ++again) {
    CHECK_CUDA(cudaDeviceSynchronize());
    CHECK_CUDA(cudaMemcpy(dc, hc.data(), hc.size(), cudaMemcpyHostToDevice));
    launched = launch(map, dc, p.ldc(), p.alpha, p.beta, p.k, nullptr, &why);
  }
  if (!launched) {
    result = "skip: " + why;
  } else {
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaDeviceSynchronize());
    long long mm = p.m, nn = p.n, kk = p.k, lda = p.lda(), ldb = p.ldb();
    int a_row = p.a_row, b_col = p.b_col, in = in_code(p.in);
    void* params[] = {&da, &db, &dref, &dmag, &mm, &nn, &kk, &lda, &ldb, &a_row, &b_col, &in};
    CHECK_CU(cuLaunchKernel(g_reference, unsigned((p.n + 15) / 16), unsigned((p.m + 15) / 16), 1, 16, 16, 1, 0,
                            nullptr, params, nullptr));
    CHECK_CUDA(cudaDeviceSynchronize());
    std::vector<unsigned char> got(hc.size());
    std::vector<double> ref(c_count), mag(c_count);
    CHECK_CUDA(cudaMemcpy(got.data(), dc, got.size(), cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaMemcpy(ref.data(), dref, c_count * 8, cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaMemcpy(mag.data(), dmag, c_count * 8, cudaMemcpyDeviceToHost));
    const double u_acc = p.in == Type::s8 ? 0 : std::ldexp(1.0, -24);
    const double u_in = p.in == Type::f32 ? std::ldexp(1.0, -10) : 0;  // TF32 truncates the inputs' mantissas
    long long wrong = 0;
    for (long long i = 0; i < p.m && wrong < 1; ++i) {
      for (long long j = 0; j < p.n; ++j) {
        const long long e = i * p.n + j;
        const double old = p.beta != 0 ? value_of(p.out, hc.data(), e) : 0;
        const double want = p.alpha * ref[e] + p.beta * old;
        const double scale = std::fabs(p.alpha) * mag[e];
        const double bound = 2.0 * (double(p.k) * u_acc + 2 * u_in) * scale + output_unit(p.out) * std::fabs(want) +
                             std::fabs(p.beta * old) * output_unit(p.out) + (p.in == Type::s8 ? 0 : 1e-30);
        const double have = value_of(p.out, got.data(), e);
        if (!(std::fabs(have - want) <= bound)) {
          char text[256];
          std::snprintf(text, sizeof text, "element (%lld, %lld) is %.6g, expected %.6g (bound %.3g)", i, j, have, want,
                        bound);
          result = text;
          ++wrong;
          break;
        }
      }
    }
  }
  cudaFree(da);
  cudaFree(db);
  cudaFree(dc);
  cudaFree(dref);
  cudaFree(dmag);
  return result;
}

int check_cases(const std::vector<Case>& cases, int launches, const char* label) {
  std::mt19937 rng(12345);
  {
    std::vector<WgmmaInstance> all;
    int dummy;
    for (const auto& cs : cases) all.push_back(map_problem(cs.p, cs.c, &dummy, &dummy).instance);
    compile_all(all, true);
  }
  int passed = 0, failed = 0, skipped = 0;
  for (const auto& cs : cases) {
    const std::string r = check_one(cs.p, cs.c, rng, launches);
    if (r.empty()) {
      ++passed;
    } else if (r.rfind("skip:", 0) == 0) {
      ++skipped;
      std::printf("SKIP %-40s %-22s %s\n", cs.p.describe().c_str(), cs.c.name().c_str(), r.c_str());
    } else {
      ++failed;
      std::printf("FAIL %-40s %-22s %s\n", cs.p.describe().c_str(), cs.c.name().c_str(), r.c_str());
    }
  }
  std::printf("%s: %d passed, %d failed, %d skipped of %zu\n", label, passed, failed, skipped, cases.size());
  return failed;
}

int run_check() {
  std::vector<Case> cases;
  const std::vector<Config> configs = {parse_config("128.256.4.2.1.1"), parse_config("128.128.6.1.1.1"),
                                       parse_config("256.128.4.2.1.1"), parse_config("128.128.5.2.2.1"),
                                       parse_config("128.128.5.2.1.2"), parse_config("128.64.6.2.1.1.swap"),
                                       parse_config("64.64.8.1.1.1"), parse_config("64.256.4.2.1.1.pp"),
                                       parse_config("128.128.5.2.2.1.pp"), parse_config("128.256.4.2.1.1.direct"),
                                       parse_config("128.256.4.2.2.1.d0"), parse_config("128.128.6.2.1.1.k3"),
                                       parse_config("128.128.6.2.1.1.pp.k2"), parse_config("128.224.4.2.1.1"),
                                       parse_config("256.112.4.2.1.1"), parse_config("64.16.8.1.1.1.swap.k2"),
                                       parse_config("128.64.8.2.1.1.swap.k4"), parse_config("64.64.8.1.1.1.swap.sk"),
                                       parse_config("64.16.8.1.1.1.swap.k2.cl"), parse_config("128.64.4.2.1.1.swap.k4.cl"),
                                       parse_config("128.128.4.2.1.1.k2.cl")};
  const std::vector<std::vector<long long>> shapes = {
      {256, 256, 128}, {129, 257, 100}, {1, 200, 72}, {300, 520, 4100}, {640, 384, 64}, {17, 1000, 513}, {2048, 2048, 192}};
  const std::vector<std::pair<Type, Type>> types = {
      {Type::bf16, Type::bf16}, {Type::bf16, Type::f32}, {Type::f16, Type::f16}, {Type::f16, Type::f32},
      {Type::f32, Type::f32},   {Type::s8, Type::s32}};
  for (const auto& [in, out] : types) {
    for (int layout = 0; layout < 4; ++layout) {
      const bool a_row = layout & 1, b_col = layout & 2;
      if ((in == Type::f32 || in == Type::s8) && !(a_row && b_col)) continue;  // wgmma reads them k-major only
      for (const auto& s : shapes) {
        for (const Config& c : configs) {
          Shape p{s[0], s[1], s[2], in, out, a_row, b_col, 1, 0};
          // B' n-major needs whole 64-column chunks of the tile.
          const bool b_mn = c.swap ? !a_row : !b_col;
          if (b_mn && c.bn % 64 != 0) continue;
          cases.push_back({p, c});
        }
      }
    }
  }
  // alpha/beta on a few.
  cases.push_back({Shape{129, 257, 100, Type::bf16, Type::bf16, true, true, 1.5f, 0.5f}, configs[0]});
  cases.push_back({Shape{129, 257, 100, Type::f16, Type::f32, false, false, -2.0f, 1.0f}, configs[1]});
  cases.push_back({Shape{129, 257, 100, Type::s8, Type::s32, true, true, 1.0f, 1.0f}, configs[3]});
  cases.push_back({Shape{129, 257, 100, Type::f32, Type::f32, true, true, 0.0f, 1.0f}, configs[5]});
  return check_cases(cases, 1, "check") ? 1 : 0;
}

}  // namespace wgmma_probe
