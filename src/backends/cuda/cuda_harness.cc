// The CUDA harness: operands in device memory, mirrored from host TestBuffers so the host
// reference and checker serve the GPU unchanged; C on the device carries the same guard bytes.
// Timing follows shared/benchmarking.md: CUDA events around a batch of launches, input sets
// rotated so their total exceeds twice the L2 (a kernel timed on one set would be timed on
// the cache), medians of interleaved samples.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <optional>

#include "cuda_backends.h"
#include "cuda_check.h"
#include "cuda_verifier.h"
#include "gemmtune/timing.h"

namespace gemmtune::cuda {
namespace {

// Device memory freed when it goes out of scope.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& other) noexcept : ptr_(other.ptr_), bytes_(other.bytes_) { other.ptr_ = nullptr; }
  ~DeviceBuffer() {
    if (ptr_ != nullptr) cudaFree(ptr_);
  }
  Status allocate(std::size_t bytes) {
    bytes_ = bytes;
    return cuda::check(cudaMalloc(&ptr_, std::max<std::size_t>(bytes, 256)), "cudaMalloc");
  }
  void* get() const { return ptr_; }
  std::size_t bytes() const { return bytes_; }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

// At most this many rotated sets, and this much memory for them.
constexpr int kMaxSets = 32;
constexpr std::size_t kMaxRotationBytes = std::size_t(4) << 30;
// Launches per timing sample: enough to hide launch gaps, never so many that a sample lasts
// more than a few tens of milliseconds.
constexpr std::int64_t kMaxLaunchesPerSample = 2000;
// The GPU idles at a low clock and needs milliseconds of work to reach its boost clock. On the
// H100 the first candidate a tuning calibrated read about twice its time (34-71 us for a
// 16-39 us kernel), so it got half the calls a sample of the others. After an idle spell of
// kIdleBeforeSpinUp the first kernel runs for kSpinUpUs before any calibration.
constexpr auto kIdleBeforeSpinUp = std::chrono::milliseconds(50);
constexpr double kSpinUpUs = 20000;

class CudaHarness final : public Harness {
 public:
  explicit CudaHarness(const DeviceInfo& device) : device_(device) {}
  ~CudaHarness() override {
    if (stream_ != nullptr) cudaStreamDestroy(stream_);
    if (start_ != nullptr) cudaEventDestroy(start_);
    if (stop_ != nullptr) cudaEventDestroy(stop_);
  }

  Status prepare(const Problem& problem, std::uint64_t seed) override {
    GEMMTUNE_RETURN_IF_ERROR(cuda::check(cudaSetDevice(device_.cuda.index), "cudaSetDevice"));
    if (stream_ == nullptr) {
      GEMMTUNE_RETURN_IF_ERROR(cuda::check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate"));
      GEMMTUNE_RETURN_IF_ERROR(cuda::check(cudaEventCreate(&start_), "cudaEventCreate"));
      GEMMTUNE_RETURN_IF_ERROR(cuda::check(cudaEventCreate(&stop_), "cudaEventCreate"));
    }
    problem_.emplace(problem);
    host_.emplace(problem, seed);

    const std::size_t a_bytes = std::size_t(problem.a_elements()) * dtype_size(problem.a_type());
    const std::size_t b_bytes = std::size_t(problem.b_elements()) * dtype_size(problem.b_type());
    const std::size_t c_bytes = std::size_t(problem.c_elements()) * dtype_size(problem.c_type());
    const std::size_t set_bytes = std::max<std::size_t>(1, a_bytes + b_bytes + c_bytes);
    const std::size_t want = 2 * std::size_t(device_.cuda.l2_bytes) + 1;
    int sets = int(std::clamp<std::size_t>((want + set_bytes - 1) / set_bytes, 1, kMaxSets));
    while (sets > 1 && std::size_t(sets) * set_bytes > kMaxRotationBytes) --sets;

    sets_.clear();
    sets_.resize(std::size_t(sets));
    for (int s = 0; s < sets; ++s) {
      OperandSet& set = sets_[std::size_t(s)];
      GEMMTUNE_RETURN_IF_ERROR(set.a.allocate(a_bytes));
      GEMMTUNE_RETURN_IF_ERROR(set.b.allocate(b_bytes));
      GEMMTUNE_RETURN_IF_ERROR(cuda::check(cudaMemcpy(set.a.get(), host_->a(), a_bytes, cudaMemcpyHostToDevice), "copy A"));
      GEMMTUNE_RETURN_IF_ERROR(cuda::check(cudaMemcpy(set.b.get(), host_->b(), b_bytes, cudaMemcpyHostToDevice), "copy B"));
      if (s == 0) {
        // Set 0's C has the guard bytes around it, as the host copy does.
        GEMMTUNE_RETURN_IF_ERROR(set.c.allocate(host_->c_bytes_with_guards()));
      } else {
        GEMMTUNE_RETURN_IF_ERROR(set.c.allocate(host_->c_bytes_with_guards()));
        GEMMTUNE_RETURN_IF_ERROR(cuda::check(cudaMemcpy(set.c.get(), host_->c_with_guards(), host_->c_bytes_with_guards(),
                                                  cudaMemcpyHostToDevice),
                                       "copy C"));
      }
    }
    // The host buffers are in their reset state now: keep that image of C on the device.
    GEMMTUNE_RETURN_IF_ERROR(c_reset_.allocate(host_->c_bytes_with_guards()));
    GEMMTUNE_RETURN_IF_ERROR(cuda::check(
        cudaMemcpy(c_reset_.get(), host_->c_with_guards(), host_->c_bytes_with_guards(), cudaMemcpyHostToDevice),
        "copy C's reset image"));
    reset_c();
    GEMMTUNE_RETURN_IF_ERROR(cuda::check(cudaDeviceSynchronize(), "prepare operands"));
    return verifier_.prepare(device_.cuda, problem, sets_[0].a.get(), sets_[0].b.get(), *host_);
  }

  GemmArgs args() override { return args_of(0); }

  // The operands may have been set up on another thread: every entry makes the device current.
  // A device copy of C's reset image, on the kernels' stream (which does not wait for the
  // default one). It was a host fill of C and an upload of it: 128 ms a verification at 4096²,
  // 2.6 s of a 6.2 s tuning of 4096³ (2026-11-27-h100-compile-time.md).
  void reset_c() override {
    cudaSetDevice(device_.cuda.index);
    cudaMemcpyAsync(sets_[0].c.get(), c_reset_.get(), c_reset_.bytes(), cudaMemcpyDeviceToDevice, stream_);
    cudaStreamSynchronize(stream_);
  }

  VerifyOutcome check() override {
    Status synced = cuda::check(cudaSetDevice(device_.cuda.index), "cudaSetDevice");
    if (synced.is_ok()) synced = cuda::check(cudaStreamSynchronize(stream_), "kernel");
    if (synced.is_ok()) synced = copy_guards_back();
    VerifyOutcome failed;
    if (!synced.is_ok()) {
      failed.reason = synced.message();
      return failed;
    }
    // The guard bytes on the host copy; every element on the device, against its reference.
    // The host copy of C itself is stale: the verifier reads C on the device.
    if (std::string guard = host_->check_guards(); !guard.empty()) {
      failed.reason = "out-of-bounds write: " + guard;
      return failed;
    }
    return verifier_.check(args_of(0).c, *host_, stream_);
  }

  std::vector<Result<TimingStats>> time(const std::vector<Kernel*>& kernels, const TimingOptions& options) override {
    const std::size_t count = kernels.size();
    std::vector<Status> failed(count);
    std::vector<std::int64_t> launches(count, 1);
    std::vector<double> calibration_us(count, -1);
    const double min_sample_us = std::max(0.0, options.min_sample_ms) * 1000.0;
    if (Status current = cuda::check(cudaSetDevice(device_.cuda.index), "cudaSetDevice"); !current.is_ok()) {
      return std::vector<Result<TimingStats>>(count, current);
    }
    if (count > 0 && std::chrono::steady_clock::now() - last_timed_ > kIdleBeforeSpinUp) spin_up(*kernels[0]);
    for (std::size_t i = 0; i < count; ++i) {
      // The warm-up runs apart from the calibration, whose batch then times the kernel alone.
      const std::int64_t warmup = std::max(1, options.warmup_runs);
      auto one = time_batch(*kernels[i], warmup);
      if (one.is_ok()) one = time_batch(*kernels[i], warmup);
      if (!one.is_ok()) {
        failed[i] = one.status();
        continue;
      }
      calibration_us[i] = *one;
      const double per_launch = std::max(*one, 0.5);
      launches[i] = std::clamp<std::int64_t>(std::int64_t(min_sample_us / per_launch) + 1, std::int64_t(sets_.size()),
                                             kMaxLaunchesPerSample);
    }
    std::vector<std::vector<double>> samples(count);
    for (int s = 0; s < std::max(1, options.samples); ++s) {
      // Balanced rounds, as on the CPU (interleaved_candidate): the same cuBLASLt algorithm
      // read 0.88-1.14x against itself when one copy was always timed first.
      for (std::size_t j = 0; j < count; ++j) {
        const std::size_t i = interleaved_candidate(s, j, count);
        if (!failed[i].is_ok()) continue;
        auto per_call = time_batch(*kernels[i], launches[i]);
        if (!per_call.is_ok()) {
          failed[i] = per_call.status();
          continue;
        }
        samples[i].push_back(*per_call);
      }
    }
    last_timed_ = std::chrono::steady_clock::now();
    std::vector<Result<TimingStats>> results;
    for (std::size_t i = 0; i < count; ++i) {
      if (!failed[i].is_ok()) {
        results.emplace_back(failed[i]);
      } else {
        TimingStats stats = summarize_samples(samples[i], launches[i]);
        stats.calibration_us = calibration_us[i];
        results.emplace_back(std::move(stats));
      }
    }
    return results;
  }

 private:
  struct OperandSet {
    DeviceBuffer a, b, c;
  };

  // The bytes around C (and, where rows are padded, the whole of C with its padding) back into
  // the host copy, for its guard check.
  Status copy_guards_back() {
    auto* host = host_->c_with_guards();
    const auto* device = static_cast<const std::uint8_t*>(sets_[0].c.get());
    const std::size_t total = host_->c_bytes_with_guards();
    if (problem_->ldc() != problem_->n() && problem_->m() > 1) {
      return cuda::check(cudaMemcpy(host, device, total, cudaMemcpyDeviceToHost), "copy C back");
    }
    const std::size_t guard = TestBuffers::kGuardBytes;
    GEMMTUNE_RETURN_IF_ERROR(cuda::check(cudaMemcpy(host, device, guard, cudaMemcpyDeviceToHost), "copy C's guards back"));
    return cuda::check(cudaMemcpy(host + total - guard, device + total - guard, guard, cudaMemcpyDeviceToHost),
                       "copy C's guards back");
  }

  GemmArgs args_of(std::size_t set) {
    auto* c = static_cast<std::uint8_t*>(sets_[set].c.get()) + TestBuffers::kGuardBytes;
    return {sets_[set].a.get(), sets_[set].b.get(), c, stream_};
  }

  // Runs `kernel` in growing batches until it has kept the GPU busy for kSpinUpUs. A kernel
  // that fails here fails again where it is timed, and says so there.
  void spin_up(Kernel& kernel) {
    double busy_us = 0;
    for (std::int64_t launches = 1; busy_us < kSpinUpUs && launches <= kMaxLaunchesPerSample; launches *= 2) {
      auto per_call = time_batch(kernel, launches);
      if (!per_call.is_ok()) return;
      busy_us += *per_call * double(launches);
    }
  }

  // Mean time per launch over `launches` launches rotating through the operand sets.
  Result<double> time_batch(Kernel& kernel, std::int64_t launches) {
    GEMMTUNE_RETURN_IF_ERROR(cuda::check(cudaEventRecord(start_, stream_), "cudaEventRecord"));
    for (std::int64_t l = 0; l < launches; ++l) {
      GEMMTUNE_RETURN_IF_ERROR(run_guarded(kernel, args_of(std::size_t(l) % sets_.size())));
    }
    GEMMTUNE_RETURN_IF_ERROR(cuda::check(cudaEventRecord(stop_, stream_), "cudaEventRecord"));
    GEMMTUNE_RETURN_IF_ERROR(cuda::check(cudaEventSynchronize(stop_), "kernel"));
    GEMMTUNE_RETURN_IF_ERROR(cuda::check(cudaGetLastError(), "kernel"));
    float ms = 0;
    GEMMTUNE_RETURN_IF_ERROR(cuda::check(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime"));
    return double(ms) * 1000.0 / double(launches);
  }

  DeviceInfo device_;
  std::optional<Problem> problem_;
  std::optional<TestBuffers> host_;
  DeviceVerifier verifier_;
  std::vector<OperandSet> sets_;
  DeviceBuffer c_reset_;  // set 0's C as every verification starts it, guard bytes included
  cudaStream_t stream_ = nullptr;
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
  std::chrono::steady_clock::time_point last_timed_{};  // when time() last ended
};

}  // namespace

Result<std::unique_ptr<Harness>> make_cuda_harness(const DeviceInfo& device) {
  return std::unique_ptr<Harness>(std::make_unique<CudaHarness>(device));
}

}  // namespace gemmtune::cuda
