// Probe of the Hopper template (src/backends/cuda/kernels/gemm_wgmma.cuh) outside the library:
// compiles instances with NVRTC through the backend's own source and tensor-map code, checks
// them element by element against a plain reference kernel, and times them against cuBLASLt's
// first heuristic pick in the same run. Built by bench/probes/wgmma/build.sh (host code only).
//
//   wgmma_probe compile [CONFIG...]      compile only (no GPU needed): registers, spills, time
//                                        WGMMA_PROBE_WORKERS=1: one compile at a time; WGMMA_PROBE_DTYPE=bf16: one
//                                        input type; WGMMA_PROBE_ARCH=compute_90a: NVRTC to PTX only (the front
//                                        end's share of the time); WGMMA_PROBE_EXTRA=OPTION: one more NVRTC
//                                        option; WGMMA_PROBE_DUMP=DIR: each cubin to DIR/N.cubin
//   wgmma_probe check                    the correctness matrix (dtypes, layouts, odd sizes, alpha/beta)
//   wgmma_probe bench DTYPE SHAPES [CONFIG...]   time on "MxNxK,..." (nt layout), CONFIG as below
//   wgmma_probe streamk [CONFIG...]      stream-K against the plain grid: checks the .sk variant
//                                        of each CONFIG (default: the main tiles) on odd shapes
//                                        and on the mid shapes below, launched twice (the tile
//                                        counters must be back at zero), then times each CONFIG
//                                        and its .sk variant beside cuBLASLt on the mid bf16 nt
//                                        shapes (300/1000/2048×14336×4096, 256×4096×4096,
//                                        512×6144×4096, 3000×4096×4096, 4096³), a table last
//
// CONFIG: bm.bn.stages.consumers.cluster_m.cluster_n[.swap][.pp], e.g. 128.256.4.2.2.1
//   swap: C' = Cᵀ (A and B exchanged); pp: ping-pong consumers; direct: no TMA-store epilogue;
//   d0: release each stage once its wgmmas finish; gN: group_m = N; kN: split k in N slices;
//   sk: stream-K (the last wave's k-blocks shared out among all clusters)
//
// The grid is as the backend (wgmma_backend.cc) sizes it: the clusters that run at once
// (cuOccupancyMaxActiveClusters), all of them under stream-K, else no more than the units.
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cublasLt.h>
#include <nvrtc.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "../../../src/backends/cuda/kernels/wgmma_stream_k.cuh"
#include "../../../src/backends/cuda/wgmma_config_space.h"
#include "../../../src/backends/cuda/wgmma_kernel_source.h"
#include "../../../src/backends/cuda/wgmma_tensor_map.h"

using gemmtune::cuda::WgmmaInstance;

namespace {

#define CHECK_CUDA(x)                                                                          \
  do {                                                                                         \
    cudaError_t e_ = (x);                                                                      \
    if (e_ != cudaSuccess) {                                                                   \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(2);                                                                            \
    }                                                                                          \
  } while (0)
#define CHECK_CU(x)                                                             \
  do {                                                                          \
    CUresult e_ = (x);                                                          \
    if (e_ != CUDA_SUCCESS) {                                                   \
      const char* s_ = nullptr;                                                 \
      cuGetErrorName(e_, &s_);                                                  \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, s_);      \
      std::exit(2);                                                             \
    }                                                                           \
  } while (0)

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    std::fprintf(stderr, "cannot read %s\n", path.c_str());
    std::exit(2);
  }
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string template_path() {
  const char* env = std::getenv("WGMMA_TEMPLATE");
  return env ? env : "src/backends/cuda/kernels/gemm_wgmma.cuh";
}

// The template as NVRTC gets it from the library: each local include (`#include "name"`, a file
// beside the template) replaced by that file's text, as embed_source.cmake does.
std::string template_text(const std::string& path) {
  std::string text = read_file(path);
  const std::string directory = path.substr(0, path.find_last_of('/') + 1);
  const std::string directive = "\n#include \"";
  for (std::size_t at = text.find(directive); at != std::string::npos; at = text.find(directive, at)) {
    const std::size_t name_begin = at + directive.size();
    const std::size_t name_end = text.find('"', name_begin);
    const std::string name = text.substr(name_begin, name_end - name_begin);
    text.replace(at + 1, name_end - at, read_file(directory + name));  // the directive, not its newline
  }
  return text;
}

struct Compiled {
  std::string cubin, log;
  double seconds = 0;
  bool ok = false;
};

Compiled nvrtc_compile(const std::string& source, const std::vector<std::string>& options) {
  Compiled out;
  const auto start = std::chrono::steady_clock::now();
  nvrtcProgram program;
  nvrtcCreateProgram(&program, source.c_str(), "gemm_wgmma.cu", 0, nullptr, nullptr);
  std::vector<const char*> raw;
  for (const auto& o : options) raw.push_back(o.c_str());
  raw.push_back("--ptxas-options=-v");
  if (const char* extra = std::getenv("WGMMA_PROBE_EXTRA")) raw.push_back(extra);
  const nvrtcResult result = nvrtcCompileProgram(program, int(raw.size()), raw.data());
  std::size_t log_size = 0;
  nvrtcGetProgramLogSize(program, &log_size);
  out.log.resize(log_size);
  if (log_size) nvrtcGetProgramLog(program, out.log.data());
  if (result == NVRTC_SUCCESS) {
    std::size_t size = 0;
    nvrtcGetCUBINSize(program, &size);
    out.cubin.resize(size);
    nvrtcGetCUBIN(program, out.cubin.data());
    out.ok = size > 0 || std::getenv("WGMMA_PROBE_ARCH");
  }
  nvrtcDestroyProgram(&program);
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

// ---- configs ----

struct Config {
  int bm = 128, bn = 256, stages = 4, consumers = 2, cluster_m = 1, cluster_n = 1;
  bool swap = false, pingpong = false, direct = false, stream_k = false;
  int depth = 1, group_m = 8, split = 1;
  std::string name() const {
    std::ostringstream s;
    s << bm << "." << bn << "." << stages << "." << consumers << "." << cluster_m << "." << cluster_n
      << (swap ? ".swap" : "") << (pingpong ? ".pp" : "") << (direct ? ".direct" : "") << (depth == 0 ? ".d0" : "")
      << (group_m != 8 ? ".g" + std::to_string(group_m) : "") << (split > 1 ? ".k" + std::to_string(split) : "")
      << (stream_k ? ".sk" : "");
    return s.str();
  }
};

Config parse_config(const std::string& text) {
  Config c;
  std::vector<std::string> parts;
  std::stringstream s(text);
  for (std::string p; std::getline(s, p, '.');) parts.push_back(p);
  if (parts.size() < 6) {
    std::fprintf(stderr, "bad config %s\n", text.c_str());
    std::exit(2);
  }
  c.bm = std::stoi(parts[0]);
  c.bn = std::stoi(parts[1]);
  c.stages = std::stoi(parts[2]);
  c.consumers = std::stoi(parts[3]);
  c.cluster_m = std::stoi(parts[4]);
  c.cluster_n = std::stoi(parts[5]);
  for (std::size_t i = 6; i < parts.size(); ++i) {
    if (parts[i] == "swap") c.swap = true;
    else if (parts[i] == "pp") c.pingpong = true;
    else if (parts[i] == "direct") c.direct = true;
    else if (parts[i] == "d0") c.depth = 0;
    else if (parts[i] == "sk") c.stream_k = true;
    else if (parts[i][0] == 'g') c.group_m = std::stoi(parts[i].substr(1));
    else if (parts[i][0] == 'k') c.split = std::stoi(parts[i].substr(1));
    else {
      std::fprintf(stderr, "bad config flag %s\n", parts[i].c_str());
      std::exit(2);
    }
  }
  return c;
}

// ---- problems ----

enum class Type { f16, bf16, f32, s8, s32 };
int bytes_of(Type t) { return t == Type::f32 || t == Type::s32 ? 4 : t == Type::s8 ? 1 : 2; }
int in_code(Type t) { return t == Type::f16 ? 0 : t == Type::bf16 ? 1 : t == Type::f32 ? 2 : 3; }
int out_code(Type t) { return t == Type::f32 ? 0 : t == Type::f16 ? 1 : t == Type::bf16 ? 2 : 3; }
const char* type_name(Type t) {
  switch (t) {
    case Type::f16: return "f16";
    case Type::bf16: return "bf16";
    case Type::f32: return "f32";
    case Type::s8: return "s8";
    default: return "s32";
  }
}

// C (m×n row-major, ldc) = alpha·A·B + beta·C; A row-major (a_row) or column-major; B
// column-major ("t": W stored n×k) or row-major.
struct Shape {
  long long m, n, k;
  Type in, out;
  bool a_row = true, b_col = true;
  float alpha = 1, beta = 0;
  long long lda() const { return a_row ? k : m; }
  long long ldb() const { return b_col ? k : n; }
  long long ldc() const { return n; }
  std::string describe() const {
    std::ostringstream s;
    s << m << "x" << n << "x" << k << " " << type_name(in) << "->" << type_name(out) << " " << (a_row ? "n" : "t")
      << (b_col ? "t" : "n");
    if (alpha != 1 || beta != 0) s << " a=" << alpha << " b=" << beta;
    return s.str();
  }
};

// The kernel's view of a problem, through the backend's own mapping (wgmma_config_space.cc);
// `direct` and `depth` are probe-only knobs of the instance, not config fields.
using Mapping = gemmtune::cuda::WgmmaMapping;

Mapping map_problem(const Shape& p, const Config& c, const void* a, const void* b) {
  gemmtune::ProblemSpec spec;
  const gemmtune::DType in = p.in == Type::f16 ? gemmtune::DType::f16 : p.in == Type::bf16 ? gemmtune::DType::bf16
                             : p.in == Type::f32 ? gemmtune::DType::f32 : gemmtune::DType::s8;
  spec.m = p.m;
  spec.n = p.n;
  spec.k = p.k;
  spec.a_type = spec.b_type = in;
  spec.c_type = p.out == Type::f16 ? gemmtune::DType::f16 : p.out == Type::bf16 ? gemmtune::DType::bf16
                : p.out == Type::f32 ? gemmtune::DType::f32 : gemmtune::DType::s32;
  spec.a_layout = p.a_row ? gemmtune::Layout::row_major : gemmtune::Layout::col_major;
  spec.b_layout = p.b_col ? gemmtune::Layout::col_major : gemmtune::Layout::row_major;
  spec.alpha = p.alpha;
  spec.beta = p.beta;
  spec.allow_tf32 = in == gemmtune::DType::f32;
  auto problem = gemmtune::Problem::create(spec);
  if (!problem.is_ok()) {
    std::fprintf(stderr, "%s: %s\n", p.describe().c_str(), problem.status().message().c_str());
    std::exit(2);
  }
  gemmtune::KernelConfig k;
  k.block_m = c.bm;
  k.block_n = c.bn;
  k.block_k = gemmtune::cuda::wgmma_block_k(in);
  k.stages = c.stages;
  k.warps = 4 * (c.consumers + 1);
  k.pingpong = c.pingpong;
  k.cluster_m = c.cluster_m;
  k.cluster_n = c.cluster_n;
  k.swap_ab = c.swap;
  k.group_m = c.group_m;
  k.split_k = c.split;
  k.stream_k = c.stream_k;
  Mapping map = gemmtune::cuda::wgmma_mapping(*problem, k, a, b);
  if (c.direct) map.instance.c_tma = false;
  map.instance.wgmma_depth = c.depth;
  return map;
}

// ---- device state ----

struct Module {
  CUmodule module = nullptr;
  CUfunction fn = nullptr;
  int shared = 0;
  int clusters = 0;  // clusters of this kernel the device runs at once
};

std::map<std::string, Module> g_modules;
std::mutex g_modules_mutex;
std::string g_template;
int g_sms = 0;

// How many clusters of a loaded kernel the device runs at once: one CTA an SM, and for clusters
// of 2 what cuOccupancyMaxActiveClusters allows (GPCs of odd SM counts leave some SMs out).
int clusters_at_once(const Module& m, const WgmmaInstance& w) {
  if (w.cluster_size() == 1) return g_sms;
  CUlaunchConfig launch_config{};
  launch_config.gridDimX = unsigned(g_sms / w.cluster_size() * w.cluster_size());
  launch_config.gridDimY = launch_config.gridDimZ = 1;
  launch_config.blockDimX = unsigned(w.threads());
  launch_config.blockDimY = launch_config.blockDimZ = 1;
  launch_config.sharedMemBytes = unsigned(m.shared);
  int clusters = 0;
  CHECK_CU(cuOccupancyMaxActiveClusters(&clusters, m.fn, &launch_config));
  return std::min(clusters, g_sms / w.cluster_size());
}

std::string instance_key(const WgmmaInstance& w) {
  std::string key;
  for (const auto& o : gemmtune::cuda::wgmma_kernel_options(w, "sm_90a")) key += o + " ";
  return key;
}

// sm_90a, or WGMMA_PROBE_ARCH (compute_90a: NVRTC stops at PTX, which times its front end).
const char* compile_arch() {
  const char* arch = std::getenv("WGMMA_PROBE_ARCH");
  return arch != nullptr ? arch : "sm_90a";
}

// Compiles (in parallel) every instance not compiled yet.
void compile_all(const std::vector<WgmmaInstance>& instances, bool load) {
  std::vector<WgmmaInstance> todo;
  std::map<std::string, bool> seen;
  for (const auto& w : instances) {
    const std::string key = instance_key(w);
    if (g_modules.count(key) || seen[key]) continue;
    seen[key] = true;
    todo.push_back(w);
  }
  std::vector<Compiled> results(todo.size());
  std::vector<std::thread> pool;
  std::size_t next = 0;
  std::mutex next_mutex;
  // WGMMA_PROBE_WORKERS=1 times each compile alone (compile times are the point of `compile`).
  const char* workers_env = std::getenv("WGMMA_PROBE_WORKERS");
  const unsigned workers = workers_env ? std::max(1, std::atoi(workers_env)) : std::max(1u, std::thread::hardware_concurrency());
  for (unsigned t = 0; t < workers; ++t) {
    pool.emplace_back([&] {
      for (;;) {
        std::size_t i;
        {
          std::lock_guard<std::mutex> lock(next_mutex);
          if (next >= todo.size()) return;
          i = next++;
        }
        results[i] = nvrtc_compile(gemmtune::cuda::wgmma_kernel_source(todo[i], g_template),
                                   gemmtune::cuda::wgmma_kernel_options(todo[i], compile_arch()));
      }
    });
  }
  for (auto& t : pool) t.join();
  for (std::size_t i = 0; i < todo.size(); ++i) {
    const std::string key = instance_key(todo[i]);
    const Compiled& r = results[i];
    if (const char* dump = std::getenv("WGMMA_PROBE_DUMP")) {  // the cubin, for cuobjdump
      std::ofstream(std::string(dump) + "/" + std::to_string(i) + ".cubin", std::ios::binary) << r.cubin;
    }
    // ptxas -v: "Used N registers" lines, spills, and any warning.
    std::string summary;
    std::stringstream log(r.log);
    for (std::string line; std::getline(log, line);) {
      if (line.find("registers") != std::string::npos || line.find("spill") != std::string::npos ||
          line.find("arning") != std::string::npos || line.find("rror") != std::string::npos ||
          line.find("serialized") != std::string::npos) {
        summary += "    " + line + "\n";
      }
    }
    std::printf("compiled %-60s %s %.2f s\n%s", key.c_str(), r.ok ? "ok" : "FAILED", r.seconds, summary.c_str());
    if (!r.ok) {
      std::printf("%s\n", r.log.substr(0, 4000).c_str());
      std::exit(1);
    }
    if (const char* dump = std::getenv("WGMMA_DUMP")) {  // cubins for cuobjdump / nvdisasm
      std::ofstream(std::string(dump) + "/" + std::to_string(i) + ".cubin", std::ios::binary) << r.cubin;
    }
    if (load) {
      Module m;
      CHECK_CU(cuModuleLoadData(&m.module, r.cubin.data()));
      CHECK_CU(cuModuleGetFunction(&m.fn, m.module, "gemmtune_gemm_wgmma"));
      m.shared = todo[i].shared_bytes();
      CHECK_CU(cuFuncSetAttribute(m.fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, m.shared));
      m.clusters = clusters_at_once(m, todo[i]);
      g_modules[key] = m;
    }
  }
}

// Launches one GEMM of the mapped problem; false (with why) when the operands cannot be mapped.
bool launch(const Mapping& map, void* c, long long ldc, float alpha, float beta, long long k, cudaStream_t stream,
            std::string* why = nullptr) {
  CUtensorMap ma, mb, mc, mc_tail;
  std::string err = gemmtune::cuda::encode_wgmma_operand_map(map.a, &ma);
  if (err.empty()) err = gemmtune::cuda::encode_wgmma_operand_map(map.b, &mb);
  if (!err.empty()) {
    if (why) *why = err;
    return false;
  }
  std::memset(&mc, 0, sizeof mc);
  std::memset(&mc_tail, 0, sizeof mc_tail);
  int c_tma = map.instance.c_tma && beta == 0 &&
              gemmtune::cuda::encode_wgmma_output_maps(c, map.instance.out_code, map.m, map.n, ldc, map.instance.block_n,
                                                       &mc, &mc_tail)
                  .empty();
  const Module& mod = g_modules.at(instance_key(map.instance));
  const WgmmaInstance& w = map.instance;
  const long long units = gemmtune::cuda::wgmma_cluster_tiles(w, map.m, map.n) * w.split_k;
  const long long clusters = w.stream_k ? mod.clusters : std::min<long long>(units, mod.clusters);
  unsigned grid = unsigned(std::max<long long>(clusters, 1) * w.cluster_size());
  long long m = map.m, n = map.n;
  // Split-k and stream-K scratch: partial sums, then the tile counters (zeroed once; the
  // kernel resets them).
  static std::map<std::string, void*> scratch;
  void* workspace = nullptr;
  void* counters = nullptr;
  if (w.shares_tiles()) {
    const std::string key = instance_key(w) + std::to_string(m) + "x" + std::to_string(n);
    const std::size_t partial = std::size_t(w.workspace_bytes(m, n, grid));
    if (!scratch.count(key)) {
      const std::size_t bytes = partial + std::size_t(w.counter_count(m, n)) * 4;
      CHECK_CUDA(cudaMalloc(&scratch[key], bytes));
      CHECK_CUDA(cudaMemset(scratch[key], 0, bytes));
    }
    workspace = scratch[key];
    counters = static_cast<char*>(workspace) + partial;
  }
  int early = 0;  // plain launch: nothing loads before a wait
  void* params[] = {&ma, &mb, &mc, &mc_tail, &c, &m, &n, &k, &ldc, &alpha, &beta, &c_tma, &workspace, &counters, &early};
  CHECK_CU(cuLaunchKernel(mod.fn, grid, 1, 1, unsigned(w.threads()), 1, 1, unsigned(mod.shared),
                          (CUstream)stream, params, nullptr));
  return true;
}

// ---- reference ----

const char* kReferenceSource = R"(
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

CUfunction g_reference = nullptr;

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

float bf16_value(std::uint16_t h) {
  std::uint32_t u = std::uint32_t(h) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
std::uint16_t bf16_bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  return std::uint16_t((u + 0x7FFF + ((u >> 16) & 1)) >> 16);
}
float f16_value(std::uint16_t h) {
  const int sign = h >> 15, exponent = (h >> 10) & 31, mantissa = h & 1023;
  float v = exponent == 0 ? std::ldexp(float(mantissa), -24) : std::ldexp(float(mantissa | 1024), exponent - 25);
  return sign ? -v : v;
}
// Round to nearest for the normal range; the inputs are in (-1, 1), so values below f16's
// smallest normal (2^-14) are flushed to zero, which the reference then sees too.
std::uint16_t f16_bits(float f) {
  const int sign = f < 0;
  f = std::fabs(f);
  if (f < std::ldexp(1.0f, -14)) return std::uint16_t(sign << 15);
  int e;
  std::frexp(f, &e);  // f = m·2^e, m in [0.5, 1)
  int mantissa = int(std::nearbyint(std::ldexp(f, 11 - e)));  // 1024..2048
  if (mantissa == 2048) {
    mantissa = 1024;
    ++e;
  }
  return std::uint16_t((sign << 15) | ((e + 14) << 10) | (mantissa & 1023));
}

// Fills `count` elements of `type` with small random values (integers for s8).
std::vector<unsigned char> random_bytes(Type type, long long count, std::mt19937& rng) {
  std::vector<unsigned char> out(std::size_t(count) * bytes_of(type));
  std::uniform_real_distribution<float> real(-1.0f, 1.0f);
  std::uniform_int_distribution<int> small(-8, 8);
  for (long long i = 0; i < count; ++i) {
    switch (type) {
      case Type::s8: reinterpret_cast<signed char*>(out.data())[i] = (signed char)small(rng); break;
      case Type::f32: reinterpret_cast<float*>(out.data())[i] = real(rng); break;
      case Type::bf16: reinterpret_cast<std::uint16_t*>(out.data())[i] = bf16_bits(real(rng)); break;
      case Type::f16: reinterpret_cast<std::uint16_t*>(out.data())[i] = f16_bits(real(rng)); break;
      case Type::s32: reinterpret_cast<int*>(out.data())[i] = small(rng) * 100; break;
    }
  }
  return out;
}

double value_of(Type type, const unsigned char* data, long long i) {
  switch (type) {
    case Type::f32: return reinterpret_cast<const float*>(data)[i];
    case Type::s32: return reinterpret_cast<const int*>(data)[i];
    case Type::bf16: return bf16_value(reinterpret_cast<const std::uint16_t*>(data)[i]);
    case Type::f16: return f16_value(reinterpret_cast<const std::uint16_t*>(data)[i]);
    default: return reinterpret_cast<const signed char*>(data)[i];
  }
}

// Unit roundoff of an output type, and of the inputs as the tensor cores read them.
double output_unit(Type t) { return t == Type::bf16 ? std::ldexp(1.0, -8) : t == Type::f16 ? std::ldexp(1.0, -11) : std::ldexp(1.0, -24); }

// Checks one problem on one config: fresh random inputs, C poisoned (beta = 0) or random, every
// element compared within |err| ≤ 2·k·u_acc·Σ|a·b| (+ TF32's input rounding) + u_out·|ref|.
// With `launches` > 1 the kernel runs again on C set back to its first contents, and the last
// run is checked: state a launch leaves behind (split-k and stream-K tile counters) must not
// change the next one's result.
// Returns "" when right, "skip: why" when the config cannot map the problem, else the first wrong element.
std::string check_one(const Shape& p, const Config& cfg, std::mt19937& rng, int launches = 1) {
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

struct Case {
  Shape p;
  Config c;
};

// Compiles every case's instance (in parallel), then checks each with `launches` launches
// (check_one), printing the failures and skips and a count under `label`. Returns the failures.
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
                                       parse_config("256.112.4.2.1.1")};
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

// ---- timing ----

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

// Median over `samples` samples of `reps` back-to-back calls, inputs rotated over `sets` copies.
template <class Fn>
double time_us(Fn&& fn, int sets, int reps = 20, int samples = 15) {
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

// Compiles and loads every config's instance for every shape of dtype `in` (nt, out = in).
void compile_for_shapes(Type in, const std::vector<std::vector<long long>>& shapes, const std::vector<Config>& configs) {
  const Type out = in == Type::s8 ? Type::s32 : in;
  std::vector<WgmmaInstance> all;
  int dummy;
  for (const auto& sh : shapes) {
    for (const Config& c : configs) all.push_back(map_problem(Shape{sh[0], sh[1], sh[2], in, out}, c, &dummy, &dummy).instance);
  }
  compile_all(all, true);
}

// One shape's times: cuBLASLt's first pick and each config (1e30 where a config cannot run it).
struct ShapeTimes {
  double peer = 1e30;
  std::vector<double> configs;
};

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

// ---- stream-K against the plain grid ----

// The mid shapes whose last wave is partial on 132 SMs, and 4096³ where it is nearly full.
const char* kStreamKShapes = "300x14336x4096,1000x14336x4096,2048x14336x4096,256x4096x4096,512x6144x4096,3000x4096x4096,"
                             "4096x4096x4096";
// The default list's main tiles: cooperative 128×256 alone and in a cluster of 2, ping-pong 128×128.
const char* kStreamKConfigs[] = {"128.256.4.2.1.1", "128.256.4.2.2.1", "128.128.6.2.1.1.pp", "256.128.4.2.1.1"};

Config with_stream_k(Config c) {
  c.stream_k = true;
  return c;
}

// Correctness of the stream-K variants: odd shapes (k not a multiple of a stage, several tiles
// a CTA, tiles past the edge of a cluster), alpha/beta, s8, and the timed shapes; each case
// launched twice on freshly poisoned C, so a tile counter left non-zero shows as a wrong C.
int check_stream_k(const std::vector<Config>& stream_k_configs) {
  std::vector<Case> cases;
  std::vector<std::vector<long long>> shapes = {{300, 520, 4104}, {129, 1000, 1000}, {1000, 1032, 760},
                                                {2048, 2048, 192}, {520, 3000, 2056}};
  for (const auto& sh : parse_shapes(kStreamKShapes)) shapes.push_back(sh);
  for (const auto& sh : shapes) {
    for (const Config& c : stream_k_configs) cases.push_back({Shape{sh[0], sh[1], sh[2], Type::bf16, Type::bf16}, c});
  }
  for (const Config& c : stream_k_configs) {
    cases.push_back({Shape{300, 520, 4104, Type::bf16, Type::f32, true, true, -0.5f, 0.75f}, c});
    cases.push_back({Shape{264, 1032, 1040, Type::s8, Type::s32, true, true, 1.0f, 1.0f}, c});
    cases.push_back({Shape{200, 648, 1000, Type::f16, Type::f16, false, false, 1.0f, 0.0f}, c});
  }
  return check_cases(cases, 2, "stream-K check");
}

// The division the kernel makes for a config on a shape (wgmma_stream_k.cuh), for the table.
std::string division_of(const Config& c, const std::vector<long long>& sh) {
  int dummy;
  const Mapping map = map_problem(Shape{sh[0], sh[1], sh[2], Type::bf16, Type::bf16}, c, &dummy, &dummy);
  const WgmmaInstance& w = map.instance;
  const int clusters = g_modules.at(instance_key(w)).clusters;
  const int tiles = int(gemmtune::cuda::wgmma_cluster_tiles(w, map.m, map.n));
  const int rows = int((map.m + w.block_m * w.cluster_m - 1) / (w.block_m * w.cluster_m));
  const gt_sk_division d = gt_sk_divide(tiles, clusters, int((sh[2] + 63) / 64), rows <= w.group_m ? rows : 1);
  char text[96];
  std::snprintf(text, sizeof text, "T=%d G=%d dp=%d sk=%d R=%d", tiles, clusters, d.dp_tiles, d.sk_tiles, d.lanes);
  return text;
}

int run_stream_k(std::vector<Config> configs) {
  if (configs.empty()) {
    for (const char* text : kStreamKConfigs) configs.push_back(parse_config(text));
  }
  std::vector<Config> stream_k, all;
  for (const Config& c : configs) stream_k.push_back(with_stream_k(c));
  for (std::size_t i = 0; i < configs.size(); ++i) {
    all.push_back(configs[i]);
    all.push_back(stream_k[i]);
  }
  const int failed = check_stream_k(stream_k);
  const std::vector<std::vector<long long>> shapes = parse_shapes(kStreamKShapes);
  compile_for_shapes(Type::bf16, shapes, all);
  std::vector<ShapeTimes> times;
  for (const auto& sh : shapes) {
    times.push_back(time_shape(Type::bf16, sh, all));
    std::printf("timed %s\n", shape_name(sh).c_str());
  }
  // The table: per config, plain and stream-K µs and their ratio; then the best of each kind
  // against cuBLASLt (ratio = cuBLASLt's time / ours, above 1 faster).
  std::printf("\nbf16 nt, µs (median of 15 samples of 20 launches, lower of 2 rounds); sk/plain = plain time / stream-K time\n");
  std::printf("%-16s %8s", "shape", "cublas");
  for (const Config& c : configs) std::printf(" | %-20s %7s %7s", c.name().c_str(), "sk", "gain");
  std::printf(" | %10s %10s\n", "plain/cub", "best/cub");
  for (std::size_t s = 0; s < shapes.size(); ++s) {
    const ShapeTimes& t = times[s];
    std::printf("%-16s %8.1f", shape_name(shapes[s]).c_str(), t.peer);
    double best_plain = 1e30, best = 1e30;
    for (std::size_t i = 0; i < configs.size(); ++i) {
      const double plain = t.configs[2 * i], sk = t.configs[2 * i + 1];
      std::printf(" | %-20.1f %7.1f %7.3f", plain, sk, plain / sk);
      best_plain = std::min(best_plain, plain);
      best = std::min({best, plain, sk});
    }
    std::printf(" | %10.3f %10.3f\n", t.peer / best_plain, t.peer / best);
  }
  std::printf("\ndivisions (wgmma_stream_k.cuh; T cluster tiles, G clusters at once, R lanes):\n");
  for (const auto& sh : shapes) {
    std::printf("%-16s", shape_name(sh).c_str());
    for (const Config& c : stream_k) std::printf("  %s: %s", c.name().c_str(), division_of(c, sh).c_str());
    std::printf("\n");
  }
  std::printf("stream-K check: %s\n", failed == 0 ? "all passed" : "FAILURES above");
  return failed == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: wgmma_probe compile|check|bench|streamk ...\n");
    return 2;
  }
  g_template = template_text(template_path());
  const std::string mode = argv[1];
  if (mode == "compile") {
    std::vector<WgmmaInstance> all;
    for (int i = 2; i < argc; ++i) {
      Config c = parse_config(argv[i]);
      for (int in = 0; in < 4; ++in) {
        // WGMMA_PROBE_DTYPE=bf16 (f16, f32, s8) compiles that input type only.
        const char* only = std::getenv("WGMMA_PROBE_DTYPE");
        static const char* kNames[] = {"f16", "bf16", "f32", "s8"};
        if (only && std::string(only) != kNames[in]) continue;
        const Type type = in == 0 ? Type::f16 : in == 1 ? Type::bf16 : in == 2 ? Type::f32 : Type::s8;
        Shape p{4096, 4096, 4096, type, type == Type::s8 ? Type::s32 : type};
        int dummy;
        all.push_back(map_problem(p, c, &dummy, &dummy).instance);
      }
    }
    compile_all(all, false);
    return 0;
  }
  CHECK_CU(cuInit(0));
  CHECK_CUDA(cudaFree(nullptr));
  cudaDeviceProp prop;
  CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  g_sms = prop.multiProcessorCount;
  std::printf("device: %s, %d SMs\n", prop.name, g_sms);
  if (mode == "check") {
    load_reference();
    return run_check();
  }
  if (mode == "streamk") {
    load_reference();
    std::vector<Config> configs;
    for (int i = 2; i < argc; ++i) configs.push_back(parse_config(argv[i]));
    return run_stream_k(configs);
  }
  if (mode == "bench" && argc >= 4) {
    const std::string t = argv[2];
    const Type in = t == "bf16" ? Type::bf16 : t == "f16" ? Type::f16 : t == "s8" ? Type::s8 : Type::f32;
    std::vector<Config> configs;
    for (int i = 4; i < argc; ++i) configs.push_back(parse_config(argv[i]));
    return run_bench(in, argv[3], configs);
  }
  std::fprintf(stderr, "unknown mode %s\n", mode.c_str());
  return 2;
}
