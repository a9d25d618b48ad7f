// What the parts of the GEMV decode-kernel probe share (usage in gemv_probe.cu): the error
// check, the element types, device buffers and operands, the kernels compiled into the probe
// and how they launch, and the entry points of each half.
//   operands.cu  element types on the host, random matrices, the float64 reference
//   kernels.cu   the templates' instances and their launch
//   check.cu     C checked against the reference (`check`)
//   bench.cu     cuBLASLt, the read floor and the timing (`bench`)
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

namespace gemv_probe {

inline void cuda_check(cudaError_t e, const char* what, const char* file, int line) {
  if (e == cudaSuccess) return;
  std::fprintf(stderr, "%s:%d %s: %s\n", file, line, what, cudaGetErrorString(e));
  std::exit(2);
}
#define CUDA_OK(x) ::gemv_probe::cuda_check((x), #x, __FILE__, __LINE__)

// ---- Element types on the host: codes as the kernel's IN and OUT, stored bits, values (operands.cu). ----
enum class Type { f16, bf16, s8, f32, s32 };

std::size_t size_of(Type t);
const char* name_of(Type t);
bool is_integer(Type t);

// The stored bits of v in type t (round to nearest even), and back.
std::uint32_t encode(Type t, double v);
double decode(Type t, std::uint32_t bits);
// Bits that no correct run writes or reads: NaN, or 127 for s8 (a read of it changes a sum).
std::uint32_t poison_bits(Type t);

std::uint32_t load_bits(const std::vector<std::uint8_t>& bytes, Type t, std::size_t index);
void store_bits(std::vector<std::uint8_t>& bytes, Type t, std::size_t index, std::uint32_t bits);

// ---- Random matrices, made on the device (hundreds of MB for the bench). ----
enum class Values { small_integers, reals };

__device__ __host__ inline std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
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

// ---- The problem and the float64 reference (operands.cu). ----
struct Operands {
  Type in;
  long long rows_a, n, k, lda, ldb;  // A holds rows_a ≥ m rows; a problem uses the first m
  DeviceBuffer a, b;
  std::vector<double> dot, abs_dot;  // [i][j]: Σ A(i,·)·B(j,·), Σ |A(i,·)·B(j,·)|
};

Operands make_operands(Type in, long long rows_a, long long n, long long k, long long ld, std::uint64_t seed,
                       Values values);
// The reference, on every host core.
void compute_reference(Operands& op);

// ---- The kernels compiled into the probe (kernels.cu). ----
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

const std::vector<Kernel>& all_kernels();
int rows_compiled_for(long long m);  // the M a run-time m uses

// ---- Launching (kernels.cu). ----
struct Device {
  int sms = 0;
  std::size_t shared_optin = 0;
  cudaStream_t stream = nullptr;
  DeviceBuffer workspace, counters;  // counters: zero, and every launch leaves them zero
};
extern Device g_device;   // set up by main
extern bool g_print_all;  // GEMV_PROBE_ALL=1: every timed candidate, not each variant's best

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

Plan plan_launch(const Kernel& kn, const Problem& p, const Setting& s);
void launch(const Kernel& kn, const Plan& plan, const Problem& p, const void* a, const void* b, void* c, bool pdl);

// ---- Checking C (check.cu). ----
// Every element of C against alpha·dot + beta·C_before: bit for bit when `exact` (small-integer
// inputs: the f32 sums and the epilogue are exact, so only the final rounding remains, done here
// the same way), else within the output's rounding plus 2^-15 of Σ|terms|. Columns past n must
// still hold their poison. Returns "" or the first mismatch and how many there were.
std::string compare_c(const std::vector<std::uint8_t>& got, const std::vector<std::uint8_t>& before,
                      const Operands& op, const Problem& p, Type out, bool exact);
int run_checks();

// ---- Timing (bench.cu). ----
int run_bench();

}  // namespace gemv_probe
