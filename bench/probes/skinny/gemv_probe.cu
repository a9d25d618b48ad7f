// Probe of the GEMV-style decode kernel (the library's src/backends/cuda/kernels/gemm_gemv.cuh, issue
// 30), its templates instantiated here outside the library.
//
// Built here (needs nvcc), run on the GPU machine from the repository root (needs only the CUDA
// 13 runtime and cuBLASLt under /usr/local/cuda/lib64, found through the binary's rpath):
//
//   bench/probes/skinny/build.sh                   # -> build/probes/gemv_probe
//   build/probes/gemv_probe                        # check, then bench; one to two minutes
//   build/probes/gemv_probe check | bench          # one half
//   GEMV_PROBE_ALL=1 build/probes/gemv_probe bench # every timed candidate, not each variant's best
//
// check: every variant and dtype against a float64 host reference, every element of C, on
// random inputs (never zeros): m ∈ {1, 2, 3, 5, 8, 16} (m < M for 3 and 5), odd n and k
// (4100 × 4104, 4099 × 4100 with k's last vector partial, 37 × 40), padding of A, B and C
// poisoned with NaN (or 127 for s8) so a read past k or a write past n shows; C poisoned when
// beta = 0; alpha/beta; splits that do not divide the steps (3, 7, more slices than steps);
// a 1- or 2-CTA grid so warps loop over groups; with and without programmatic dependent launch.
// Small-integer inputs make the f32 sums exact, so those checks compare bit for bit; real-valued
// inputs are checked within a bound.
//
// bench: bf16 in and out, m ∈ {1, 8, 16}, (n, k) ∈ {(4096, 4096), (14336, 4096), (4096, 14336)}:
// each variant × warps × split, with and without PDL, beside the read-only floor (read_once.cuh
// over B's bytes, plain and PDL) and cuBLASLt's first heuristic algorithm for the same problem.
// Back-to-back launches between CUDA events over operand sets rotated through more than 100 MB,
// each sample ≥ 1 ms, candidates interleaved sample by sample, the median of 15 samples. Every
// timed kernel's C (and cuBLASLt's) is checked against the reference first. The last table: m, n,
// k, variant, µs, TB/s (A + B + C bytes over the time), cuBLASLt's time over it, the floor's
// (same launch mode) over it.
#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "../memory/read_once.cuh"
#include "../../../src/backends/cuda/kernels/gemm_gemv.cuh"

namespace {

void cuda_check(cudaError_t e, const char* what, int line) {
  if (e == cudaSuccess) return;
  std::fprintf(stderr, "gemv_probe.cu:%d %s: %s\n", line, what, cudaGetErrorString(e));
  std::exit(2);
}
#define CUDA_OK(x) cuda_check((x), #x, __LINE__)

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

// ---- Element types on the host: codes as the kernel's IN and OUT, stored bits, values. ----
enum class Type { f16, bf16, s8, f32, s32 };

std::size_t size_of(Type t) { return t == Type::s8 ? 1 : (t == Type::f16 || t == Type::bf16) ? 2 : 4; }
const char* name_of(Type t) {
  static const char* names[] = {"f16", "bf16", "s8", "f32", "s32"};
  return names[int(t)];
}
bool is_integer(Type t) { return t == Type::s8 || t == Type::s32; }

// The stored bits of v in type t (round to nearest even), and back.
std::uint32_t encode(Type t, double v) {
  switch (t) {
    case Type::f16: return __half_as_ushort(__float2half_rn(float(v)));
    case Type::bf16: return __bfloat16_as_ushort(__float2bfloat16_rn(float(v)));
    case Type::s8: return std::uint8_t(std::int8_t(v));
    case Type::s32: return std::uint32_t(std::int32_t(std::int64_t(v)));
    default: {
      const float f = float(v);
      std::uint32_t bits;
      std::memcpy(&bits, &f, 4);
      return bits;
    }
  }
}
double decode(Type t, std::uint32_t bits) {
  switch (t) {
    case Type::f16: return __half2float(__ushort_as_half(std::uint16_t(bits)));
    case Type::bf16: {
      const std::uint32_t w = bits << 16;
      float f;
      std::memcpy(&f, &w, 4);
      return f;
    }
    case Type::s8: return std::int8_t(bits);
    case Type::s32: return std::int32_t(bits);
    default: {
      float f;
      std::memcpy(&f, &bits, 4);
      return f;
    }
  }
}
// Bits that no correct run writes or reads: NaN, or 127 for s8 (a read of it changes a sum).
std::uint32_t poison_bits(Type t) { return t == Type::s8 ? 0x7f : t == Type::s32 ? 0x7eadbeef : 0xffffffffu; }

std::uint32_t load_bits(const std::vector<std::uint8_t>& bytes, Type t, std::size_t index) {
  std::uint32_t bits = 0;
  std::memcpy(&bits, bytes.data() + index * size_of(t), size_of(t));
  return bits;
}
void store_bits(std::vector<std::uint8_t>& bytes, Type t, std::size_t index, std::uint32_t bits) {
  std::memcpy(bytes.data() + index * size_of(t), &bits, size_of(t));
}

// ---- Random matrices, made on the device (hundreds of MB for the bench). ----
enum class Values { small_integers, reals };

__device__ __host__ inline std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Element (r, c) of a rows × cols matrix with leading dimension ld: never zero; small integers
// (±1..±3, whose f32 sums are exact) or reals ±[0.25, 1) (s8: ±1..±64); columns past cols hold
// the type's poison.
__global__ void fill_random(void* p, int type, long long rows, long long cols, long long ld, std::uint64_t seed,
                            int integers, std::uint32_t poison) {
  const long long total = rows * ld;
  for (long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x; idx < total;
       idx += (long long)gridDim.x * blockDim.x) {
    const long long c = idx % ld;
    const std::uint64_t h = mix(seed ^ mix((std::uint64_t)idx));
    const float sign = (h & 1) ? -1.0f : 1.0f;
    const float u = float((h >> 8) & 0xffffff) / 16777216.0f;
    float v;
    if (integers) {
      v = sign * float(1 + int(u * 3.0f));
    } else {
      v = type == int(Type::s8) ? sign * float(1 + int(u * 64.0f)) : sign * (0.25f + 0.75f * u);
    }
    const bool pad = c >= cols;
    switch (Type(type)) {
      case Type::f16: ((std::uint16_t*)p)[idx] = pad ? std::uint16_t(poison) : __half_as_ushort(__float2half_rn(v)); break;
      case Type::bf16:
        ((std::uint16_t*)p)[idx] = pad ? std::uint16_t(poison) : __bfloat16_as_ushort(__float2bfloat16_rn(v));
        break;
      case Type::s8: ((std::int8_t*)p)[idx] = pad ? std::int8_t(poison) : std::int8_t(v); break;
      case Type::s32: ((std::int32_t*)p)[idx] = pad ? std::int32_t(poison) : std::int32_t(v); break;
      default: ((float*)p)[idx] = pad ? __uint_as_float(poison) : v; break;
    }
  }
}

// A device buffer, freed with its owner.
struct DeviceBuffer {
  void* ptr = nullptr;
  std::size_t bytes = 0;
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t n) : bytes(n) { CUDA_OK(cudaMalloc(&ptr, std::max<std::size_t>(n, 16))); }
  DeviceBuffer(DeviceBuffer&& o) noexcept : ptr(o.ptr), bytes(o.bytes) { o.ptr = nullptr; }
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    std::swap(ptr, o.ptr);
    std::swap(bytes, o.bytes);
    return *this;
  }
  ~DeviceBuffer() {
    if (ptr) cudaFree(ptr);
  }
  std::vector<std::uint8_t> to_host() const {
    std::vector<std::uint8_t> h(bytes);
    CUDA_OK(cudaMemcpy(h.data(), ptr, bytes, cudaMemcpyDeviceToHost));
    return h;
  }
};

DeviceBuffer random_matrix(Type t, long long rows, long long cols, long long ld, std::uint64_t seed, Values values) {
  DeviceBuffer buf(std::size_t(rows * ld) * size_of(t));
  fill_random<<<1024, 256>>>(buf.ptr, int(t), rows, cols, ld, seed, values == Values::small_integers, poison_bits(t));
  CUDA_OK(cudaGetLastError());
  CUDA_OK(cudaDeviceSynchronize());  // the kernels run on another stream, which does not wait for this one
  return buf;
}

// ---- The problem and the float64 reference. ----
struct Operands {
  Type in;
  long long rows_a, n, k, lda, ldb;  // A holds rows_a ≥ m rows; a problem uses the first m
  DeviceBuffer a, b;
  std::vector<double> dot, abs_dot;  // [i][j]: Σ A(i,·)·B(j,·), Σ |A(i,·)·B(j,·)|
};

Operands make_operands(Type in, long long rows_a, long long n, long long k, long long ld, std::uint64_t seed,
                       Values values) {
  return Operands{in, rows_a, n, k, ld, ld, random_matrix(in, rows_a, k, ld, seed, values),
                  random_matrix(in, n, k, ld, seed + 1, values), {}, {}};
}

// The reference, on every host core.
void compute_reference(Operands& op) {
  const auto to_values = [&](const DeviceBuffer& buf, long long rows, long long ld) {
    const std::vector<std::uint8_t> bytes = buf.to_host();
    std::vector<float> v(std::size_t(rows * op.k));
    for (long long r = 0; r < rows; ++r)
      for (long long c = 0; c < op.k; ++c) v[r * op.k + c] = float(decode(op.in, load_bits(bytes, op.in, r * ld + c)));
    return v;
  };
  const std::vector<float> a = to_values(op.a, op.rows_a, op.lda), b = to_values(op.b, op.n, op.ldb);
  op.dot.assign(std::size_t(op.rows_a * op.n), 0.0);
  op.abs_dot.assign(op.dot.size(), 0.0);
  const unsigned workers = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::thread> threads;
  for (unsigned w = 0; w < workers; ++w) {
    threads.emplace_back([&, w] {
      for (long long j = w; j < op.n; j += workers) {
        const float* bj = &b[j * op.k];
        for (long long i = 0; i < op.rows_a; ++i) {
          const float* ai = &a[i * op.k];
          double s = 0, sa = 0;
          for (long long kk = 0; kk < op.k; ++kk) {
            const double p = double(ai[kk]) * double(bj[kk]);
            s += p;
            sa += std::fabs(p);
          }
          op.dot[i * op.n + j] = s;
          op.abs_dot[i * op.n + j] = sa;
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
}

// ---- The kernels compiled into the probe. ----
struct Kernel {
  Type in, out;
  int M, R, U, stages;
  bool a_shared;
  const void* fn;
  std::string variant() const {  // e.g. r4u2s1.sh: 4 rows, 2 steps a batch, 1 stage, A in shared memory
    return "r" + std::to_string(R) + "u" + std::to_string(U) + "s" + std::to_string(stages) +
           (a_shared ? ".sh" : ".l1");
  }
  int step_elements() const { return in == Type::s8 ? 512 : 256; }
  int partials_per_group() const {  // the kernel's pow2(R·M)
    int v = 1;
    while (v < R * M) v *= 2;
    return v;
  }
};

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

int rows_compiled_for(long long m) {  // the M a run-time m uses
  int M = 1;
  while (M < m) M *= 2;
  return M;
}

// ---- Launching. ----
struct Device {
  int sms = 0;
  std::size_t shared_optin = 0;
  cudaStream_t stream = nullptr;
  DeviceBuffer workspace, counters;  // counters: zero, and every launch leaves them zero
};
Device g_device;
bool g_print_all = false;  // GEMV_PROBE_ALL=1: every timed candidate, not each variant's best

// The run-time choices: warps per CTA, slices of k, CTAs along n, programmatic dependent launch.
// CTAs along n: kBalanced, one wave that gives every warp the same number of groups (with 1.3
// groups a warp, some warps would stream twice as long as others); kFill, as many as fit at once
// (all SMs busy, groups uneven); or that number.
constexpr int kBalanced = 0, kFill = -1;
struct Setting {
  int warps = 4, split = 1, grid_x = kBalanced;
  bool pdl = false;
  std::string name() const {
    return "w" + std::to_string(warps) + " k" + std::to_string(split) +
           (grid_x == kFill ? " fill" : grid_x > 0 ? " g" + std::to_string(grid_x) : "");
  }
};

struct Problem {
  long long m, n, k, lda, ldb, ldc;
  float alpha, beta;
};

struct Plan {
  bool ok = false;
  std::string why;
  dim3 grid, block;
  std::size_t shared = 0;
  int ctas_per_sm = 0;
};

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

// ---- Checking C. ----
// Every element of C against alpha·dot + beta·C_before: bit for bit when `exact` (small-integer
// inputs: the f32 sums and the epilogue are exact, so only the final rounding remains, done here
// the same way), else within the output's rounding plus 2^-15 of Σ|terms|. Columns past n must
// still hold their poison. Returns "" or the first mismatch and how many there were.
std::string compare_c(const std::vector<std::uint8_t>& got, const std::vector<std::uint8_t>& before,
                      const Operands& op, const Problem& p, Type out, bool exact) {
  const double out_eps = out == Type::bf16 ? 1.0 / 256 : out == Type::f16 ? 1.0 / 2048 : 1.0 / 8388608;
  long long bad = 0;
  char first[256] = "";
  for (long long i = 0; i < p.m; ++i) {
    for (long long j = 0; j < p.ldc; ++j) {
      const std::size_t at = std::size_t(i * p.ldc + j);
      const std::uint32_t bits = load_bits(got, out, at);
      bool ok;
      double want;
      if (j >= p.n) {
        want = decode(out, poison_bits(out));
        ok = bits == load_bits(before, out, at);
      } else {
        const double old = p.beta != 0 ? decode(out, load_bits(before, out, at)) : 0.0;
        const double dot = op.dot[i * op.n + j];
        if (is_integer(out)) {
          want = double(std::int32_t(std::int64_t(dot) + (p.beta != 0 ? std::int64_t(old) : 0)));
          ok = bits == encode(out, want);
        } else {
          want = double(p.alpha) * dot + double(p.beta) * old;
          if (exact) {
            ok = bits == encode(out, double(float(want)));
          } else {
            const double tol = out_eps * std::fabs(want) +
                               std::ldexp(std::fabs(p.alpha) * op.abs_dot[i * op.n + j] + std::fabs(p.beta * old), -15);
            ok = std::fabs(decode(out, bits) - want) <= tol;  // false for NaN
          }
        }
      }
      if (!ok && bad++ == 0) {
        std::snprintf(first, sizeof first, "C(%lld,%lld) = %.6g (bits %08x), want %.6g", i, j, decode(out, bits),
                      bits, want);
      }
    }
  }
  if (bad == 0) return "";
  return std::string(first) + " (" + std::to_string(bad) + " wrong of " + std::to_string(p.m * p.ldc) + ")";
}

// C before a run: poison when beta = 0 (the kernel must not read it), else small random values;
// columns past n poisoned either way.
std::vector<std::uint8_t> c_before(Type out, const Problem& p, std::uint64_t seed) {
  std::vector<std::uint8_t> bytes(std::size_t(p.m * p.ldc) * size_of(out));
  for (long long i = 0; i < p.m; ++i)
    for (long long j = 0; j < p.ldc; ++j) {
      const std::uint64_t h = mix(seed ^ std::uint64_t(i * p.ldc + j));
      const double v = ((h & 1) ? -1.0 : 1.0) * double(1 + (h >> 8) % 3);
      const bool poison = p.beta == 0 || j >= p.n;
      store_bits(bytes, out, std::size_t(i * p.ldc + j), poison ? poison_bits(out) : encode(out, v));
    }
  return bytes;
}

// One run of one kernel: "" when C is right, else why not ("skip: ..." when it cannot run).
std::string run_checked(const Kernel& kn, const Setting& s, const Operands& op, const Problem& p, bool exact) {
  const Plan plan = plan_launch(kn, p, s);
  if (!plan.ok) return "skip: " + plan.why;
  const std::vector<std::uint8_t> before = c_before(kn.out, p, std::uint64_t(p.m * 131 + s.split));
  DeviceBuffer c(before.size());
  CUDA_OK(cudaMemcpy(c.ptr, before.data(), before.size(), cudaMemcpyHostToDevice));
  launch(kn, plan, p, op.a.ptr, op.b.ptr, c.ptr, s.pdl);
  CUDA_OK(cudaStreamSynchronize(g_device.stream));
  CUDA_OK(cudaGetLastError());
  return compare_c(c.to_host(), before, op, p, kn.out, exact);
}

struct CheckShape {
  long long n, k, ld;  // ld 0: k rounded up to a 16-byte vector
};

int run_checks() {
  const CheckShape shapes[] = {{4100, 4104, 0}, {4099, 4100, 4112}, {37, 40, 48}};
  const long long ms[] = {1, 2, 3, 5, 8, 16};
  // warps, split, grid_x, pdl: one balanced wave; three slices (k's steps do not divide) and two
  // CTAs, so warps loop over groups; seven slices, more than some shapes have steps, the SMs filled.
  const Setting settings[] = {{4, 1, kBalanced, false}, {8, 3, 2, true}, {4, 7, kFill, true}};
  int passed = 0, failed = 0, skipped = 0;
  for (Type in : {Type::bf16, Type::f16, Type::s8}) {
    for (const CheckShape& shape : shapes) {
      for (Values values : {Values::small_integers, Values::reals}) {
        const long long vec = in == Type::s8 ? 16 : 8;
        const long long ld = shape.ld ? shape.ld : (shape.k + vec - 1) / vec * vec;
        Operands op = make_operands(in, 16, shape.n, shape.k, ld, 1000 + shape.n, values);
        compute_reference(op);
        for (const Kernel& kn : all_kernels()) {
          if (kn.in != in) continue;
          for (long long m : ms) {
            if (rows_compiled_for(m) != kn.M) continue;
            for (int si = 0; si < 3; ++si) {
              // Real-valued inputs: the first setting only (the small integers cover the rest).
              if (values == Values::reals && si > 0) continue;
              const Setting& s = settings[si];
              Problem p{m, shape.n, shape.k, ld, ld, shape.n + (si == 1 ? 5 : 0), 1.0f, 0.0f};
              if (si == 1) {
                p.alpha = is_integer(kn.out) ? 1.0f : 0.5f;
                p.beta = is_integer(kn.out) ? 1.0f : -2.0f;
              }
              const std::string r = run_checked(kn, s, op, p, values == Values::small_integers);
              const bool skip = r.rfind("skip:", 0) == 0;
              passed += r.empty();
              skipped += skip;
              failed += !r.empty() && !skip;
              if (!r.empty()) {
                std::printf("%s %s->%s M%d %s m=%lld n=%lld k=%lld ld=%lld %s%s a=%g b=%g %s: %s\n",
                            skip ? "SKIP" : "FAIL", name_of(kn.in), name_of(kn.out), kn.M, kn.variant().c_str(), m,
                            shape.n, shape.k, ld, s.name().c_str(), s.pdl ? " pdl" : "", p.alpha, p.beta,
                            values == Values::reals ? "reals" : "integers", r.c_str());
              }
            }
          }
        }
      }
    }
  }
  std::printf("check: %d passed, %d failed, %d skipped\n", passed, failed, skipped);
  return failed ? 1 : 0;
}

// ---- Timing. ----
// cuBLASLt's first heuristic algorithm for C = A·Bᵀ, bf16 in and out, f32 compute (the call
// torch's F.linear makes): column-major, Cᵀ (n × m) = op(B as k × n)ᵀ · (A as k × m).
class CublasLt {
 public:
  CublasLt(long long m, long long n, long long k) {
    ok(cublasLtCreate(&handle_));
    ok(cublasLtMatmulDescCreate(&desc_, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    const cublasOperation_t transpose = CUBLAS_OP_T, keep = CUBLAS_OP_N;
    ok(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_TRANSA, &transpose, sizeof transpose));
    ok(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_TRANSB, &keep, sizeof keep));
    ok(cublasLtMatrixLayoutCreate(&weights_, CUDA_R_16BF, k, n, k));
    ok(cublasLtMatrixLayoutCreate(&activations_, CUDA_R_16BF, k, m, k));
    ok(cublasLtMatrixLayoutCreate(&result_, CUDA_R_16BF, n, m, n));
    workspace_ = DeviceBuffer(kWorkspaceBytes);
    cublasLtMatmulPreference_t pref;
    ok(cublasLtMatmulPreferenceCreate(&pref));
    const std::size_t bytes = kWorkspaceBytes;
    ok(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &bytes, sizeof bytes));
    cublasLtMatmulHeuristicResult_t first{};
    int found = 0;
    ok(cublasLtMatmulAlgoGetHeuristic(handle_, desc_, weights_, activations_, result_, result_, pref, 1, &first, &found));
    cublasLtMatmulPreferenceDestroy(pref);
    if (found == 0) {
      std::fprintf(stderr, "cuBLASLt has no algorithm for %lldx%lldx%lld\n", m, n, k);
      std::exit(2);
    }
    algo_ = first.algo;
  }
  ~CublasLt() {
    cublasLtMatrixLayoutDestroy(weights_);
    cublasLtMatrixLayoutDestroy(activations_);
    cublasLtMatrixLayoutDestroy(result_);
    cublasLtMatmulDescDestroy(desc_);
    cublasLtDestroy(handle_);
  }
  void run(const void* a, const void* b, void* c) {
    const float one = 1.0f, zero = 0.0f;
    ok(cublasLtMatmul(handle_, desc_, &one, b, weights_, a, activations_, &zero, c, result_, c, result_, &algo_,
                      workspace_.ptr, kWorkspaceBytes, g_device.stream));
  }

 private:
  static constexpr std::size_t kWorkspaceBytes = 32 << 20;
  static void ok(cublasStatus_t s) {
    if (s != CUBLAS_STATUS_SUCCESS) {
      std::fprintf(stderr, "cuBLASLt status %d\n", int(s));
      std::exit(2);
    }
  }
  cublasLtHandle_t handle_ = nullptr;
  cublasLtMatmulDesc_t desc_ = nullptr;
  cublasLtMatrixLayout_t weights_ = nullptr, activations_ = nullptr, result_ = nullptr;
  cublasLtMatmulAlgo_t algo_{};
  DeviceBuffer workspace_;
};

// One thing timed: a launch on operand set `set`.
struct Candidate {
  std::string label;
  bool pdl = false;
  double bytes = 0;  // bytes one launch moves
  std::function<void(int set)> run;
  long long launches = 0;  // per sample, from the calibration
  std::vector<double> samples;
  double median_us() const {
    std::vector<double> s = samples;
    std::sort(s.begin(), s.end());
    return s[s.size() / 2];
  }
};

// Each candidate's median over 15 samples of back-to-back launches (≥ 1 ms a sample), sets
// rotated; the candidates take turns sample by sample, so drift of clocks or temperature
// spreads over all of them.
void time_interleaved(std::vector<Candidate>& cands, int sets) {
  cudaEvent_t start, stop;
  CUDA_OK(cudaEventCreate(&start));
  CUDA_OK(cudaEventCreate(&stop));
  const auto sample = [&](Candidate& c, long long launches) {
    CUDA_OK(cudaEventRecord(start, g_device.stream));
    for (long long l = 0; l < launches; ++l) c.run(int(l % sets));
    CUDA_OK(cudaEventRecord(stop, g_device.stream));
    CUDA_OK(cudaEventSynchronize(stop));
    float ms = 0;
    CUDA_OK(cudaEventElapsedTime(&ms, start, stop));
    return double(ms) * 1000.0 / double(launches);
  };
  for (Candidate& c : cands) {
    sample(c, 20);
    const double us = sample(c, 40);
    c.launches = std::max<long long>(2 * sets, (long long)std::ceil(1200.0 / us));
  }
  for (int s = 0; s < 16; ++s) {
    for (Candidate& c : cands) {
      const double us = sample(c, c.launches);
      if (s > 0) c.samples.push_back(us);  // the first round warms up
    }
  }
  CUDA_OK(cudaGetLastError());
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
}

struct SummaryRow {
  long long m, n, k;
  std::string label;
  double us, tbs, vs_cublas, vs_floor;
};

void print_row(const SummaryRow& r) {
  std::printf("%4lld %6lld %6lld  %-34s %9.2f %6.2f %8.3f %8.3f\n", r.m, r.n, r.k, r.label.c_str(), r.us, r.tbs,
              r.vs_cublas, r.vs_floor);
}

std::vector<int> splits_for(long long k) {
  const long long steps = (k + 255) / 256;
  std::vector<int> out;
  for (int s : {1, 2, 4, 8, 16})
    if (steps >= 2 * s) out.push_back(s);
  return out;
}

// Times one shape; appends its summary rows.
void bench_shape(long long m, long long n, long long k, std::vector<SummaryRow>& summary) {
  const Type in = Type::bf16, out = Type::bf16;
  const double set_bytes = double(m * k + n * k + m * n) * 2;
  const int sets = std::max(2, int(100e6 / set_bytes) + 1);
  std::vector<Operands> ops;
  std::vector<DeviceBuffer> cs;
  for (int s = 0; s < sets; ++s) {
    ops.push_back(make_operands(in, m, n, k, k, 7000 + 17 * s, Values::reals));
    cs.emplace_back(std::size_t(m * n) * 2);
  }
  compute_reference(ops[0]);
  const Problem p{m, n, k, k, k, n, 1.0f, 0.0f};
  const auto c_is_right = [&](const std::string& label) {
    CUDA_OK(cudaStreamSynchronize(g_device.stream));
    CUDA_OK(cudaGetLastError());
    const std::vector<std::uint8_t> before(std::size_t(m * n) * 2, 0xff);
    const std::string r = compare_c(cs[0].to_host(), before, ops[0], p, out, false);
    if (!r.empty()) std::printf("FAIL %lldx%lldx%lld %s: %s\n", m, n, k, label.c_str(), r.c_str());
    CUDA_OK(cudaMemset(cs[0].ptr, 0xff, cs[0].bytes));
    return r.empty();
  };
  CUDA_OK(cudaMemset(cs[0].ptr, 0xff, cs[0].bytes));

  std::vector<Candidate> cands;
  DeviceBuffer sink(4);
  for (bool pdl : {false, true}) {
    Candidate c;
    c.label = pdl ? "floor: read B, pdl" : "floor: read B";
    c.pdl = pdl;
    c.bytes = double(n * k) * 2;
    c.run = [&, pdl](int s) {
      cudaLaunchAttribute attr{};
      attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
      attr.val.programmaticStreamSerializationAllowed = 1;
      cudaLaunchConfig_t config{};
      config.gridDim = dim3(unsigned(8 * g_device.sms));
      config.blockDim = dim3(256);
      config.stream = g_device.stream;
      config.attrs = pdl ? &attr : nullptr;
      config.numAttrs = pdl ? 1 : 0;
      CUDA_OK(cudaLaunchKernelEx(&config, read_once, (const uint4*)ops[s].b.ptr, (long long)(n * k * 2 / 16),
                                 (unsigned*)sink.ptr, int(pdl)));
    };
    cands.push_back(c);
  }
  CublasLt blas(m, n, k);
  {
    blas.run(ops[0].a.ptr, ops[0].b.ptr, cs[0].ptr);
    Candidate c;
    c.label = "cuBLASLt (first heuristic)";
    c.bytes = set_bytes;
    c.run = [&](int s) { blas.run(ops[s].a.ptr, ops[s].b.ptr, cs[s].ptr); };
    if (c_is_right(c.label)) cands.push_back(c);
  }
  // Every variant for this m × warps × split × grid × launch mode; a fill grid only where it is
  // not the balanced one.
  const auto add_gemv = [&](const Kernel& kn, const Setting& s) {
    const Plan plan = plan_launch(kn, p, s);
    if (!plan.ok) return;
    if (s.grid_x == kFill && plan.grid.x == plan_launch(kn, p, Setting{s.warps, s.split, kBalanced, s.pdl}).grid.x) {
      return;
    }
    Candidate c;
    c.label = kn.variant() + " " + s.name() + " o" + std::to_string(plan.ctas_per_sm) + (s.pdl ? " pdl" : "");
    c.pdl = s.pdl;
    c.bytes = set_bytes;
    const Kernel* kp = &kn;
    c.run = [&, kp, plan, pdl = s.pdl](int set) {
      launch(*kp, plan, p, ops[set].a.ptr, ops[set].b.ptr, cs[set].ptr, pdl);
    };
    c.run(0);
    if (c_is_right(c.label)) cands.push_back(c);
  };
  for (const Kernel& kn : all_kernels()) {
    if (kn.in != in || kn.out != out || kn.M != rows_compiled_for(m)) continue;
    for (int warps : {4, 8})
      for (int split : splits_for(k))
        for (int grid : {kBalanced, kFill})
          for (bool pdl : {false, true}) add_gemv(kn, Setting{warps, split, grid, pdl});
  }
  time_interleaved(cands, sets);

  double floor_us[2] = {cands[0].median_us(), cands[1].median_us()};
  double cublas_us = 0;
  for (const Candidate& c : cands)
    if (c.label.rfind("cuBLASLt", 0) == 0) cublas_us = c.median_us();
  const auto row_of = [&](const Candidate& c, const std::string& label) {
    const double us = c.median_us();
    return SummaryRow{m, n, k, label, us, c.bytes / us / 1e6, cublas_us > 0 ? cublas_us / us : 0.0,
                      floor_us[c.pdl] / us};
  };
  std::printf("\n%lld x %lld x %lld bf16 (nt), %d operand sets of %.1f MB; gemv rRuUsS.{sh,l1} wW kK oO: R rows "
              "and U steps a batch, S stages, A in shared memory or through L1, W warps a CTA, K slices of k, O "
              "CTAs an SM; %s\n",
              m, n, k, sets, set_bytes / 1e6, g_print_all ? "every candidate" : "each variant's best with and without pdl");
  std::printf("%4s %6s %6s  %-34s %9s %6s %8s %8s\n", "m", "n", "k", "variant", "us", "TB/s", "cublas/x", "floor/x");
  const Candidate* best[2] = {nullptr, nullptr};
  std::vector<const Candidate*> variant_best;  // per variant and launch mode
  for (const Candidate& c : cands) {
    const bool gemv = c.label.rfind("floor", 0) != 0 && c.label.rfind("cuBLASLt", 0) != 0;
    if (!gemv || g_print_all) print_row(row_of(c, c.label));
    if (!gemv) continue;
    if (!best[c.pdl] || c.median_us() < best[c.pdl]->median_us()) best[c.pdl] = &c;
    const std::string variant = c.label.substr(0, c.label.find(' '));
    auto same = std::find_if(variant_best.begin(), variant_best.end(), [&](const Candidate* v) {
      return v->pdl == c.pdl && v->label.substr(0, v->label.find(' ')) == variant;
    });
    if (same == variant_best.end()) {
      variant_best.push_back(&c);
    } else if (c.median_us() < (*same)->median_us()) {
      *same = &c;
    }
  }
  if (!g_print_all)
    for (const Candidate* c : variant_best) print_row(row_of(*c, c->label));
  summary.push_back(row_of(cands[1], cands[1].label));
  summary.push_back(row_of(cands[0], cands[0].label));
  if (cublas_us > 0) {
    for (const Candidate& c : cands)
      if (c.label.rfind("cuBLASLt", 0) == 0) summary.push_back(row_of(c, c.label));
  }
  for (int pdl : {1, 0})
    if (best[pdl]) summary.push_back(row_of(*best[pdl], "gemv " + best[pdl]->label));
}

int run_bench() {
  std::vector<SummaryRow> summary;
  for (long long m : {1, 8, 16}) {
    for (auto nk : {std::pair<long long, long long>{4096, 4096}, {14336, 4096}, {4096, 14336}}) {
      bench_shape(m, nk.first, nk.second, summary);
    }
  }
  std::printf("\nsummary: bf16 in and out, nt; us = median per call; TB/s = (A + B + C bytes) / time (floor: B's);\n"
              "cublas/x = cuBLASLt's time / this one's; floor/x = the read floor's time (same launch mode) / this "
              "one's\n");
  std::printf("%4s %6s %6s  %-34s %9s %6s %8s %8s\n", "m", "n", "k", "variant", "us", "TB/s", "cublas/x", "floor/x");
  for (const SummaryRow& r : summary) print_row(r);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string what = argc > 1 ? argv[1] : "all";
  if (what != "all" && what != "check" && what != "bench") {
    std::fprintf(stderr, "usage: gemv_probe [check|bench|all]\n");
    return 2;
  }
  cudaDeviceProp prop{};
  CUDA_OK(cudaGetDeviceProperties(&prop, 0));
  g_device.sms = prop.multiProcessorCount;
  g_device.shared_optin = prop.sharedMemPerBlockOptin;
  CUDA_OK(cudaStreamCreateWithFlags(&g_device.stream, cudaStreamNonBlocking));
  g_device.workspace = DeviceBuffer(64 << 20);
  g_device.counters = DeviceBuffer(4 << 20);
  CUDA_OK(cudaMemset(g_device.counters.ptr, 0, g_device.counters.bytes));
  int clock_khz = 0, mem_khz = 0;
  cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0);
  cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, 0);
  std::printf("%s: %d SMs, L2 %d MB, %zu KB shared memory a block at most, clocks %d / %d MHz; %zu kernels\n",
              prop.name, prop.multiProcessorCount, prop.l2CacheSize >> 20, prop.sharedMemPerBlockOptin >> 10,
              clock_khz / 1000, mem_khz / 1000, all_kernels().size());
  g_print_all = std::getenv("GEMV_PROBE_ALL") != nullptr;
  int rc = 0;
  if (what != "bench") rc |= run_checks();
  if (what != "check") rc |= run_bench();
  return rc;
}
