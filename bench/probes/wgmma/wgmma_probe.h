// What the parts of the Hopper-template probe share (usage in wgmma_probe.cc): the error checks,
// the probe's configs, element types and problems, the compiled and loaded kernels, and the
// entry points of each mode.
//   kernels.cc   the template's text, NVRTC compiles, module loading, launches
//   problems.cc  configs, element types, problems and their mapping, host-side values
//   check.cc     the reference kernel and the correctness matrix (`check`)
//   bench.cc     cuBLASLt and the timing (`bench`)
//   stream_k.cc  stream-K against the plain grid (`streamk`)
#pragma once

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "../../../src/backends/cuda/wgmma_config_space.h"
#include "../../../src/backends/cuda/wgmma_kernel_source.h"

namespace wgmma_probe {

using gemmtune::cuda::WgmmaInstance;

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

// ---- configs (problems.cc) ----

struct Config {
  int bm = 128, bn = 256, stages = 4, consumers = 2, cluster_m = 1, cluster_n = 1;
  bool swap = false, pingpong = false, direct = false, stream_k = false, split_cluster = false;
  int depth = 1, group_m = 8, split = 1;
  std::string name() const {
    std::ostringstream s;
    s << bm << "." << bn << "." << stages << "." << consumers << "." << cluster_m << "." << cluster_n
      << (swap ? ".swap" : "") << (pingpong ? ".pp" : "") << (direct ? ".direct" : "") << (depth == 0 ? ".d0" : "")
      << (group_m != 8 ? ".g" + std::to_string(group_m) : "") << (split > 1 ? ".k" + std::to_string(split) : "")
      << (stream_k ? ".sk" : "") << (split_cluster ? ".cl" : "");
    return s.str();
  }
};

Config parse_config(const std::string& text);

// ---- problems (problems.cc) ----

enum class Type { f16, bf16, f32, s8, s32 };
int bytes_of(Type t);
int in_code(Type t);
int out_code(Type t);
const char* type_name(Type t);

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

Mapping map_problem(const Shape& p, const Config& c, const void* a, const void* b);

// Fills `count` elements of `type` with small random values (integers for s8).
std::vector<unsigned char> random_bytes(Type type, long long count, std::mt19937& rng);
// Element i of `data` as a double.
double value_of(Type type, const unsigned char* data, long long i);

// ---- compiled kernels (kernels.cc) ----

struct Compiled {
  std::string cubin, log;
  double seconds = 0;
  bool ok = false;
};

struct Module {
  CUmodule module = nullptr;
  CUfunction fn = nullptr;
  int shared = 0;
  int clusters = 0;  // clusters of this kernel the device runs at once
};

extern std::map<std::string, Module> g_modules;  // by instance_key
extern std::string g_template;                   // template_text(template_path()), set by main
extern int g_sms;                                // set by main before anything is loaded

// WGMMA_TEMPLATE, or the library's template.
std::string template_path();
// The template as NVRTC gets it from the library: each local include (`#include "name"`, a file
// beside the template) replaced by that file's text, as embed_source.cmake does.
std::string template_text(const std::string& path);
std::string left_out(std::string text);            // WGMMA_PROBE_LEAVE_OUT, applied by template_text
Compiled nvrtc_compile(const std::string& source, const std::vector<std::string>& options);
// The NVRTC options of an instance, which name it.
std::string instance_key(const WgmmaInstance& w);
// Compiles (in parallel) every instance not compiled yet; with `load`, loads it into g_modules.
void compile_all(const std::vector<WgmmaInstance>& instances, bool load);
// Launches one GEMM of the mapped problem; false (with why) when the operands cannot be mapped.
bool launch(const Mapping& map, void* c, long long ldc, float alpha, float beta, long long k, cudaStream_t stream,
            std::string* why = nullptr);

// ---- correctness (check.cc) ----

struct Case {
  Shape p;
  Config c;
};

// Compiles the reference kernel and loads it; `check` and `streamk` need it.
void load_reference();
// Compiles every case's instance (in parallel), then checks each with `launches` launches
// (check_one), printing the failures and skips and a count under `label`. Returns the failures.
int check_cases(const std::vector<Case>& cases, int launches, const char* label);
int run_check();

// ---- timing (bench.cc) ----

// One shape's times: cuBLASLt's first pick and each config (1e30 where a config cannot run it).
struct ShapeTimes {
  double peer = 1e30;
  std::vector<double> configs;
};

std::vector<std::vector<long long>> parse_shapes(const std::string& text);
// Compiles and loads every config's instance for every shape of dtype `in` (nt, out = in).
void compile_for_shapes(Type in, const std::vector<std::vector<long long>>& shapes, const std::vector<Config>& configs);
ShapeTimes time_shape(Type in, const std::vector<long long>& sh, const std::vector<Config>& configs);
std::string shape_name(const std::vector<long long>& sh);
int run_bench(Type in, const std::string& shapes_text, const std::vector<Config>& configs);

// ---- stream-K against the plain grid (stream_k.cc) ----

int run_stream_k(std::vector<Config> configs);

}  // namespace wgmma_probe
