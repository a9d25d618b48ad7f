// The probe's `bench` half: each bf16 variant × warps × split × grid, with and without PDL,
// timed beside the read-only floor and cuBLASLt's first heuristic pick, and the tables.
#include <cublasLt.h>

#include <cmath>
#include <functional>

#include "gemv_probe.cuh"

#include "../memory/read_once.cuh"  // after the CUDA runtime's headers: it includes none

namespace gemv_probe {

bool g_print_all = false;

// ---- Timing. ----

namespace {

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

}  // namespace

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

}  // namespace gemv_probe
