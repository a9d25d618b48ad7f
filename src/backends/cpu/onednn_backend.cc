// Backend "onednn": oneDNN's matmul primitive, created once per problem at prepare time (that
// is the primitive cache: a Kernel owns its primitive), run on user pointers (the main kernel); and for
// f32, oneDNN's BLAS-like dnnl_sgemm (kernel=sgemm), which takes the shape at every call and skips
// the primitive's per-execution setup: 0.2-0.5 µs for products below 64³ where an execution
// costs 1.2 µs.
#include <omp.h>

#include <vector>

#include <oneapi/dnnl/dnnl.hpp>

#include "cpu_backends.h"

namespace gemmtune::cpu {
namespace {

using dnnl::memory;

dnnl::engine& cpu_engine() {
  static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

memory::data_type to_dnnl(DType type) {
  switch (type) {
    case DType::f32: return memory::data_type::f32;
    case DType::f16: return memory::data_type::f16;
    case DType::bf16: return memory::data_type::bf16;
    case DType::s8: return memory::data_type::s8;
    case DType::s32: return memory::data_type::s32;
  }
  return memory::data_type::undef;
}

// oneDNN sizes its threading from omp_get_max_threads() at creation and execution; this sets
// the config's thread count for one scope and restores the caller's afterwards.
class ScopedOmpThreads {
 public:
  explicit ScopedOmpThreads(int threads) : saved_(omp_get_max_threads()) {
    if (threads > 0) omp_set_num_threads(threads);
  }
  ~ScopedOmpThreads() { omp_set_num_threads(saved_); }

 private:
  int saved_;
};

struct Descs {
  memory::desc a, b, c;
};

Descs make_descs(const Problem& p) {
  const memory::dims a_strides = p.a_layout() == Layout::row_major ? memory::dims{p.lda(), 1} : memory::dims{1, p.lda()};
  const memory::dims b_strides = p.b_layout() == Layout::row_major ? memory::dims{p.ldb(), 1} : memory::dims{1, p.ldb()};
  return {memory::desc({p.m(), p.k()}, to_dnnl(p.a_type()), a_strides),
          memory::desc({p.k(), p.n()}, to_dnnl(p.b_type()), b_strides),
          memory::desc({p.m(), p.n()}, to_dnnl(p.c_type()), memory::dims{p.ldc(), 1})};
}

// Whether the ISA oneDNN dispatches to (DNNL_MAX_CPU_ISA and the CPU's features both count)
// has a VNNI dot product. Without one, oneDNN's int8 kernels multiply u8 by s8 with vpmaddubsw,
// which adds each pair of products in a saturating 16-bit lane: its s8·s8 matmul shifts A by
// +128 into u8, so a pair as small as 2 · 255 · -128 saturates and C comes back wrong
// (seen on Zen 3: element (1, 7) of 3 × 50 × 7 was -22369, not -22914).
bool onednn_has_vnni() {
  const auto isa = static_cast<unsigned>(dnnl::get_effective_cpu_isa());
  const auto has = [isa](dnnl_cpu_isa_t level) { return (isa & unsigned(level)) == unsigned(level); };
  return has(dnnl_cpu_isa_avx512_core_vnni) || has(dnnl_cpu_isa_avx2_vnni);
}

Result<dnnl::matmul::primitive_desc> make_primitive_desc(const Problem& p, int threads) {
  if (p.m() == 0 || p.n() == 0 || p.k() == 0) {
    return unsupported("oneDNN matmul is not used for zero-sized dims");
  }
  static const bool has_vnni = onednn_has_vnni();
  if (p.a_type() == DType::s8 && !has_vnni) {
    return unsupported("oneDNN's int8 matmul without VNNI sums pairs of products in saturating 16-bit lanes "
                       "(vpmaddubsw): its s8*s8 sums are wrong on this CPU");
  }
  try {
    ScopedOmpThreads scope(threads);
    const Descs d = make_descs(p);
    dnnl::primitive_attr attr;
    if (p.alpha() != 1.0) attr.set_output_scales(0, {float(p.alpha())});
    if (p.beta() != 0.0) {
      dnnl::post_ops ops;
      ops.append_sum(float(p.beta()));
      attr.set_post_ops(ops);
    }
    return dnnl::matmul::primitive_desc(dnnl::matmul::desc(d.a, d.b, d.c), attr, cpu_engine());
  } catch (const dnnl::error& e) {
    return unsupported(std::string("oneDNN has no matmul for this problem on this CPU (") + e.what() + ")");
  }
}

class OnednnKernel final : public Kernel {
 public:
  OnednnKernel(dnnl::matmul::primitive_desc pd, Descs descs, int threads)
      : primitive_(pd), descs_(std::move(descs)), threads_(threads) {}

  Status run(const GemmArgs& args) override {
    try {
      ScopedOmpThreads scope(threads_);
      // Streams are not shared between threads; each calling thread keeps its own.
      thread_local dnnl::stream stream(cpu_engine());
      memory a(descs_.a, cpu_engine(), const_cast<void*>(args.a));
      memory b(descs_.b, cpu_engine(), const_cast<void*>(args.b));
      memory c(descs_.c, cpu_engine(), args.c);
      primitive_.execute(stream, {{DNNL_ARG_SRC, a}, {DNNL_ARG_WEIGHTS, b}, {DNNL_ARG_DST, c}});
      stream.wait();
      return Status::ok();
    } catch (const dnnl::error& e) {
      return Status(ErrorCode::internal, std::string("oneDNN execute failed: ") + e.what());
    }
  }

 private:
  dnnl::matmul primitive_;
  Descs descs_;
  int threads_;
};

constexpr int kMatmulPrimitive = kKernelMain;
constexpr int kSgemm = kKernelSgemm;

Status check_sgemm(const Problem& p) {
  if (p.a_type() != DType::f32 || p.b_type() != DType::f32 || p.c_type() != DType::f32) {
    return unsupported("oneDNN's sgemm is f32 only");
  }
  if (p.m() == 0 || p.n() == 0 || p.k() == 0) return unsupported("oneDNN's sgemm is not used for zero-sized dims");
  return Status::ok();
}

// dnnl_sgemm on row-major C: a column-major operand is the transposed row-major one.
class OnednnSgemmKernel final : public Kernel {
 public:
  OnednnSgemmKernel(const Problem& p, int threads)
      : trans_a_(p.a_layout() == Layout::row_major ? 'N' : 'T'),
        trans_b_(p.b_layout() == Layout::row_major ? 'N' : 'T'),
        m_(p.m()), n_(p.n()), k_(p.k()), lda_(p.lda()), ldb_(p.ldb()), ldc_(p.ldc()),
        alpha_(float(p.alpha())), beta_(float(p.beta())), threads_(threads) {}

  Status run(const GemmArgs& args) override {
    ScopedOmpThreads scope(threads_);
    const dnnl_status_t status = dnnl_sgemm(trans_a_, trans_b_, m_, n_, k_, alpha_, static_cast<const float*>(args.a),
                                            lda_, static_cast<const float*>(args.b), ldb_, beta_,
                                            static_cast<float*>(args.c), ldc_);
    if (status != dnnl_success) return Status(ErrorCode::internal, "dnnl_sgemm failed: status " + std::to_string(status));
    return Status::ok();
  }

 private:
  char trans_a_, trans_b_;
  dnnl_dim_t m_, n_, k_, lda_, ldb_, ldc_;
  float alpha_, beta_;
  int threads_;
};

class OnednnBackend final : public Backend {
 public:
  explicit OnednnBackend(const CpuInfo& cpu) : cpu_(cpu) {}
  std::string_view name() const override { return "onednn"; }
  std::string version() const override {
    const dnnl_version_t* v = dnnl_version();
    return std::to_string(v->major) + "." + std::to_string(v->minor) + "." + std::to_string(v->patch) + "+" +
           v->hash;
  }
  // The primitive first (a caller's default), then sgemm.
  std::vector<KernelConfig> configs(const Problem& problem, SearchSpace) const override {
    std::vector<KernelConfig> configs = configs_of(problem, kMatmulPrimitive);
    for (const KernelConfig& c : configs_of(problem, kSgemm)) configs.push_back(c);
    return configs;
  }
  // sgemm takes the shape at the call; a primitive is a handle made once per shape. Other dtypes
  // have only the primitive.
  std::vector<KernelConfig> per_call_configs(const Problem& problem) const override {
    if (check_sgemm(problem).is_ok()) return configs_of(problem, kSgemm);
    return configs_of(problem, kMatmulPrimitive);
  }
  Status can_implement(const Problem& problem, const KernelConfig& config) const override {
    if (config.kernel == kSgemm) return check_sgemm(problem);
    if (config.kernel != kMatmulPrimitive) {
      return unsupported("oneDNN has its matmul primitive (the main kernel) and sgemm, not " +
                         std::string(kernel_name(config.kernel)));
    }
    auto pd = make_primitive_desc(problem, config.threads);
    return pd.status();
  }
  Result<std::unique_ptr<Kernel>> prepare(const Problem& problem, const KernelConfig& config) const override {
    GEMMTUNE_RETURN_IF_ERROR(can_implement(problem, config));
    if (config.kernel == kSgemm) return std::unique_ptr<Kernel>(std::make_unique<OnednnSgemmKernel>(problem, config.threads));
    GEMMTUNE_ASSIGN_OR_RETURN(auto pd, make_primitive_desc(problem, config.threads));
    try {
      ScopedOmpThreads scope(config.threads);
      return std::unique_ptr<Kernel>(std::make_unique<OnednnKernel>(pd, make_descs(problem), config.threads));
    } catch (const dnnl::error& e) {
      return Status(ErrorCode::internal, std::string("oneDNN primitive creation failed: ") + e.what());
    }
  }

 private:
  // One kernel on all cores and on one thread: oneDNN's own threading costs microseconds a call
  // that small products cannot pay back.
  std::vector<KernelConfig> configs_of(const Problem& problem, int kernel) const {
    std::vector<KernelConfig> configs;
    for (int threads : {cpu_.logical_cores, 1}) {
      KernelConfig c;
      c.kernel = kernel;
      c.threads = threads;
      if (can_implement(problem, c).is_ok() && (configs.empty() || configs.back() != c)) configs.push_back(c);
    }
    return configs;
  }

  CpuInfo cpu_;
};

}  // namespace

std::unique_ptr<Backend> make_onednn_backend(const CpuInfo& cpu) { return std::make_unique<OnednnBackend>(cpu); }

}  // namespace gemmtune::cpu
