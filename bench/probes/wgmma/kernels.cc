// The Hopper template as the probe compiles and runs it: the template's text, NVRTC compiles of
// its instances (in parallel), their modules loaded, and one GEMM launched through the backend's
// own tensor-map code.
#include <nvrtc.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <mutex>
#include <thread>

#include "../../../src/backends/cuda/wgmma_tensor_map.h"
#include "wgmma_probe.h"

namespace wgmma_probe {

// ---- device state ----

std::map<std::string, Module> g_modules;
std::string g_template;
int g_sms = 0;

static std::mutex g_modules_mutex;

static std::string read_file(const std::string& path) {
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
  return left_out(text);
}

// WGMMA_PROBE_LEAVE_OUT=fixup: split-k through the workspace without its fix-up (each slice
// writes its own partial sums to C: wrong results, the rest of the kernel intact); =fence: the
// fix-up without its first fence. Times the kernel without that part, as GT_PROBE_SKIP does for
// others, by editing the template's text, which leaves the library's template (and so the
// backend's version) alone (bench/results/2026-11-28-h200-split-fixup.md).
std::string left_out(std::string text) {
  const char* part = std::getenv("WGMMA_PROBE_LEAVE_OUT");
  if (part == nullptr || *part == '\0') return text;
  const std::string what = part;
  auto missing = [&](const char* piece) {
    std::fprintf(stderr, "WGMMA_PROBE_LEAVE_OUT=%s: the template has no %s\n", part, piece);
    std::exit(2);
  };
  if (what == "fixup") {
    const std::size_t begin = text.find("if (!gt_split_fixup(");
    const std::size_t body = text.find("continue;", begin);
    const std::size_t end = text.find('}', body);
    if (begin == std::string::npos || body == std::string::npos || end == std::string::npos) missing("gt_split_fixup call");
    text.replace(begin, end + 1 - begin, "(void)slot;");
  } else if (what == "fence") {
    const std::size_t begin = text.find("__threadfence();  // the partials are visible");
    if (begin == std::string::npos) missing("fence before the tile count");
    text.erase(begin, text.find('\n', begin) - begin);
  } else {
    std::fprintf(stderr, "WGMMA_PROBE_LEAVE_OUT=%s: expected fixup or fence\n", part);
    std::exit(2);
  }
  return text;
}

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

// How many clusters of a loaded kernel the device runs at once: one CTA an SM, and for clusters
// of 2 what cuOccupancyMaxActiveClusters allows (GPCs of odd SM counts leave some SMs out).
static int clusters_at_once(const Module& m, const WgmmaInstance& w) {
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
static const char* compile_arch() {
  const char* arch = std::getenv("WGMMA_PROBE_ARCH");
  return arch != nullptr ? arch : "sm_90a";
}

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

bool launch(const Mapping& map, void* c, long long ldc, float alpha, float beta, long long k, cudaStream_t stream,
            std::string* why) {
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
  const long long units = w.work_units(gemmtune::cuda::wgmma_cluster_tiles(w, map.m, map.n));
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

}  // namespace wgmma_probe
