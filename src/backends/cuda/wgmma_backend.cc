// Backend "wgmma": gemmtune's Hopper kernels, compiled at run time with NVRTC.
#include "wgmma_backend.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <mutex>

#include "cubin_cache.h"
#include "cuda_backends.h"
#include "cuda_check.h"
#include "cuda_module.h"
#include "launch_overlap.h"
#include "operand_address.h"
#include "pad_copy_kernel.h"
#include "padded_operand.h"
#include "wgmma_config_space.h"
#include "worker_client.h"

namespace gemmtune::cuda {
namespace {

std::atomic<std::int64_t> wgmma_compilations{0};

// The tensor maps of one call's pointers. Encoding one takes a few hundred nanoseconds of host
// time; a kernel called again on the same buffers (a layer's weights and its activation
// buffer) reuses the last call's.
struct OperandMaps {
  const void* a = nullptr;
  const void* b = nullptr;
  void* c = nullptr;
  const void* copies = nullptr;  // where the padded copies were (the device's buffer may move)
  CUtensorMap map_a{}, map_b{}, map_c{}, map_c_tail{};
  int c_tma = 0;  // whether map_c and map_c_tail hold C (beta == 0 and C is TMA-addressable)
};

class WgmmaKernel final : public JitKernel {
 public:
  WgmmaKernel(const Problem& problem, const KernelConfig& config)
      : problem_(problem), mapping_(wgmma_mapping(problem, config)) {}

  Status load(const CudaInfo& device, const std::string& cubin) {
    const WgmmaInstance& w = mapping_.instance;
    GEMMTUNE_RETURN_IF_ERROR(module_.load(device.index, cubin));
    GEMMTUNE_ASSIGN_OR_RETURN(function_, module_.function("gemmtune_gemm_wgmma", w.shared_bytes()));
    // A persistent grid: as many CTAs (clusters) as run at once, or as there are tiles.
    int clusters = device.sm_count / w.cluster_size();
    if (w.cluster_size() > 1) {
      CUlaunchConfig launch{};
      launch.gridDimX = unsigned(clusters * w.cluster_size());
      launch.gridDimY = launch.gridDimZ = 1;
      launch.blockDimX = unsigned(w.threads());
      launch.blockDimY = launch.blockDimZ = 1;
      launch.sharedMemBytes = unsigned(w.shared_bytes());
      int active = 0;
      GEMMTUNE_RETURN_IF_ERROR(check_driver(driver().occupancy_max_active_clusters(&active, function_, &launch),
                                            "cuOccupancyMaxActiveClusters"));
      if (active < 1) return unsupported("the device runs no cluster of this kernel at once");
      clusters = std::min(clusters, active);
    }
    // Stream-K shares the last wave's k-blocks among every cluster that runs at once, so its
    // grid is all of them; otherwise no more clusters than units of work.
    const std::int64_t units = w.work_units(wgmma_cluster_tiles(w, mapping_.m, mapping_.n));
    if (!w.stream_k) clusters = int(std::max<std::int64_t>(1, std::min<std::int64_t>(clusters, units)));
    grid_ = unsigned(clusters * w.cluster_size());
    // Split-k and stream-K: the partial sums, then one counter a tile (and consumer).
    partial_bytes_ = std::size_t(w.workspace_bytes(mapping_.m, mapping_.n, grid_));
    overlapped_ = launch_overlap() != LaunchOverlap::off;
    // The padded copies of operands TMA cannot address, in the device's buffer for them.
    for (auto [i, operand] : {std::pair{std::size_t(0), &mapping_.a}, std::pair{std::size_t(1), &mapping_.b}}) {
      if (operand->caller_ld != 0) padded_.add(i, padded_copy_shape(*operand));
    }
    if (padded_.any()) {
      GEMMTUNE_ASSIGN_OR_RETURN(pad_copy_, pad_copy_function(device));
      sm_count_ = device.sm_count;
      copies_ = &padded_copies_buffer(device.index);
    }
    // GEMMTUNE_PDL=weights: the problem's B, the weights, loads before the wait; the kernel sees
    // it as A' where the mapping swapped the operands. Not where it reads a padded copy, which
    // the copy before it in the stream writes.
    const std::size_t weights = w.c_transposed ? 0 : 1;
    if (launch_overlap() == LaunchOverlap::weights && !padded_.copies(weights)) early_ = int(weights) + 1;
    return scratch_.allocate(partial_bytes_ + std::size_t(w.counter_count(mapping_.m, mapping_.n)) * sizeof(int));
  }

  // Enqueues on args.stream and returns. Safe from several threads: the maps of a call are
  // its own; the cache of the last call's maps is only used when its lock is free.
  Status run(const GemmArgs& args) override {
    if (mapping_.m == 0 || mapping_.n == 0) return Status::ok();
    GEMMTUNE_RETURN_IF_ERROR(module_.make_current());
    // Operands TMA cannot address are copied first, into the device's buffer for copies, one
    // call's copies at a time: the turn comes first, as the maps address the copies. A turn
    // taken is given back (its event recorded) whatever fails after it, so a later call on
    // another stream never waits on an event of an older call.
    std::unique_lock<std::mutex> copying, turn;
    void* copies = nullptr;
    if (copies_ != nullptr) {
      GEMMTUNE_ASSIGN_OR_RETURN(copying, copies_->begin(args.stream, padded_.bytes()));
      copies = copies_->data();
    }
    Status status = run_with(args, copies, turn);
    for (auto [held, scratch] : {std::pair{&turn, &scratch_}, std::pair{&copying, copies_}}) {
      if (!held->owns_lock()) continue;
      const Status given_back = scratch->finish(args.stream);
      if (status.is_ok()) status = given_back;
    }
    return status;
  }

  std::size_t workspace_bytes() const override { return scratch_.bytes() + padded_.bytes(); }

 private:
  // The call once the copies' turn, if any, is taken: its maps, its copies, the workspace's
  // turn (`turn`, which run gives back) and the launch.
  Status run_with(const GemmArgs& args, void* copies, std::unique_lock<std::mutex>& turn) {
    OperandMaps local;
    const OperandMaps* maps = &local;
    std::unique_lock<std::mutex> lock(cache_mutex_, std::try_to_lock);
    if (lock.owns_lock() && cache_.a == args.a && cache_.b == args.b && cache_.c == args.c &&
        cache_.copies == copies && cache_.a != nullptr) {
      maps = &cache_;
    } else {
      GEMMTUNE_RETURN_IF_ERROR(encode(args, copies, local));
      if (lock.owns_lock()) cache_ = local;
    }
    const WgmmaInstance& w = mapping_.instance;
    void* c = args.c;
    long long m = mapping_.m, n = mapping_.n, k = problem_.k(), ldc = problem_.ldc();
    float alpha = float(problem_.alpha()), beta = float(problem_.beta());
    int c_tma = maps->c_tma;
    int early = args.operands_just_written ? 0 : early_;  // a copy the stream just wrote is read after the wait
    void* workspace = scratch_.data();
    void* counters = workspace != nullptr ? static_cast<char*>(workspace) + partial_bytes_ : nullptr;
    void* params[] = {const_cast<CUtensorMap*>(&maps->map_a), const_cast<CUtensorMap*>(&maps->map_b),
                      const_cast<CUtensorMap*>(&maps->map_c), const_cast<CUtensorMap*>(&maps->map_c_tail),
                      &c, &m, &n, &k, &ldc, &alpha, &beta, &c_tma, &workspace, &counters, &early};
    if (copies != nullptr) {
      // The caller's A' and B' copied where they are padded.
      std::array<const void*, 2> operands = caller_operands(args);
      GEMMTUNE_RETURN_IF_ERROR(padded_.enqueue(pad_copy_, operands, copies, args.stream, sm_count_));
    }
    if (workspace != nullptr) {
      GEMMTUNE_ASSIGN_OR_RETURN(turn, scratch_.begin(args.stream));
    }
    // Overlapped with the previous kernel in the stream unless GEMMTUNE_PDL=off: the kernel
    // waits for it (griddepcontrol.wait) before it touches memory.
    return enqueue_launch(function_, grid_, 1, unsigned(w.threads()), unsigned(w.shared_bytes()),
                          static_cast<CUstream>(args.stream), params, overlapped_,
                          "cuLaunchKernelEx(gemmtune_gemm_wgmma)");
  }

  Status encode(const GemmArgs& args, void* copies, OperandMaps& out) const {
    out.a = args.a;
    out.b = args.b;
    out.c = args.c;
    out.copies = copies;
    out.c_tma = 0;
    if (problem_.k() == 0) return Status::ok();  // C = beta·C: the kernel loads nothing
    WgmmaOperand a = mapping_.a, b = mapping_.b;
    const std::array<const void*, 2> callers = caller_operands(args);
    // A padded operand's map addresses its copy, whose rows TMA can.
    for (auto [i, operand] : {std::pair{0, &a}, std::pair{1, &b}}) {
      operand->data = padded_.copies(i) ? padded_.at(copies, i) : callers[i];
      operand->caller_ld = 0;
    }
    for (auto [operand, map, name] : {std::tuple{&a, &out.map_a, "A'"}, std::tuple{&b, &out.map_b, "B'"}}) {
      const std::string why = encode_wgmma_operand_map(*operand, map);
      if (!why.empty()) return unsupported(std::string("wgmma kernel cannot load operand ") + name + ": " + why);
    }
    out.c_tma = mapping_.instance.c_tma && problem_.beta() == 0.0 &&
                encode_wgmma_output_maps(args.c, mapping_.instance.out_code, mapping_.m, mapping_.n, problem_.ldc(),
                                         mapping_.instance.block_n, &out.map_c, &out.map_c_tail)
                    .empty();
    return Status::ok();
  }

  // The caller's A' and B' (the problem's B and A where the mapping swapped them).
  std::array<const void*, 2> caller_operands(const GemmArgs& args) const {
    if (mapping_.instance.c_transposed) return {args.b, args.a};
    return {args.a, args.b};
  }

  const Problem problem_;
  const WgmmaMapping mapping_;
  CudaModule module_;
  CUfunction function_ = nullptr;
  unsigned grid_ = 0;
  bool overlapped_ = false;  // launched overlapped with the previous kernel (GEMMTUNE_PDL)
  int early_ = 0;            // the kernel's `early`: which of A', B' loads before the wait
  std::mutex cache_mutex_;
  OperandMaps cache_;
  std::size_t partial_bytes_ = 0;
  SerializedScratch scratch_;  // split-k and stream-K partial sums and tile counters
  OperandCopies padded_;  // A', B': the copies of those TMA cannot address (none where it can)
  SerializedScratch* copies_ = nullptr;  // the device's buffer for them, where there are any
  CUfunction pad_copy_ = nullptr;  // kernels/pad_copy.cuh, where an operand is padded
  int sm_count_ = 0;
};

class WgmmaBackend final : public Backend {
 public:
  explicit WgmmaBackend(const CudaInfo& device) : device_(device) {}

  std::string_view name() const override { return "wgmma"; }
  // TMA read bf16 4096^3 with A 16 bytes off the 256-byte grid in 1.7x the time; a small
  // operand is read in place (operand_address.h).
  std::size_t operand_grid_bytes(std::int64_t operand_bytes) const override {
    return tma_operand_grid_bytes(operand_bytes);
  }
  // TMA reads A and B at 16-byte aligned addresses only (a padded operand aside):
  // Session::gemm runs a call off that grid elsewhere.
  bool reads_any_address() const override { return false; }
  std::string version() const override { return wgmma_backend_version(); }
  std::int64_t compilations() const override { return wgmma_compilations.load(); }
  // ptxas's time grows with the accumulator tile: on the H100's host, alone, ~0.3 s for a
  // swapped 64x8 tile, ~0.8 s for 128x64 and ~2.5 s for 128x256; ping-pong's two tiles in flight
  // take longer (bench/results/2026-11-27-h100-cold-tuning.md).
  double prepare_cost(const Problem&, const KernelConfig& config) const override {
    return (0.3 + 2.2 * double(config.block_m) * double(config.block_n) / (128.0 * 256.0)) * (config.pingpong ? 1.3 : 1.0);
  }

  std::vector<KernelConfig> configs(const Problem& problem, SearchSpace space) const override {
    return wgmma_configs(problem, space, device_);
  }

  Status can_implement(const Problem& problem, const KernelConfig& config) const override {
    return wgmma_can_implement(problem, config, device_);
  }

  Result<std::unique_ptr<Kernel>> prepare(const Problem& problem, const KernelConfig& config) const override {
    return prepare_jit_kernel<WgmmaKernel>(
        device_, problem, config, "wgmma",
        [&](bool recompile) { return compile_gemm_wgmma(problem, config, device_, recompile); },
        [&] { return std::make_unique<WgmmaKernel>(problem, config); });
  }

 private:
  const CudaInfo device_;
};

}  // namespace

std::string wgmma_backend_version() {
  // The prelude of one instance stands for the generator: an edit of how it writes the
  // instruction changes it.
  // Its padded operands' copy kernel is timed with it.
  static const std::string version =
      "gemm_wgmma-" +
      to_hex(sha256(std::string(gemm_wgmma_source()) + wgmma_kernel_source(WgmmaInstance{}, ""))).substr(0, 16) +
      "+" + pad_copy_version();
  return version;
}

Status wgmma_can_implement(const Problem& problem, const KernelConfig& config, const CudaInfo& device) {
  GEMMTUNE_RETURN_IF_ERROR(check_wgmma_problem(problem));
  GEMMTUNE_RETURN_IF_ERROR(check_wgmma_config_shape(config, problem));
  return check_wgmma_limits(config, problem, device);
}

Result<CubinArtifact> compile_gemm_wgmma(const Problem& problem, const KernelConfig& config, const CudaInfo& device,
                                         bool recompile) {
  GEMMTUNE_RETURN_IF_ERROR(wgmma_can_implement(problem, config, device));
  const WgmmaInstance instance = wgmma_mapping(problem, config).instance;
  auto artifact = obtain_cubin(wgmma_kernel_source(instance, gemm_wgmma_source()),
                               wgmma_kernel_options(instance, device.arch()), recompile);
  if (!artifact.is_ok()) {
    return Status(artifact.status().code(), "compiling wgmma " + config.to_string() + " for " + problem.describe() +
                                                ": " + artifact.status().message());
  }
  if (!artifact->from_cache) ++wgmma_compilations;
  return artifact;
}

std::unique_ptr<Backend> make_wgmma_backend(const CudaInfo& device) { return std::make_unique<WgmmaBackend>(device); }

}  // namespace gemmtune::cuda
