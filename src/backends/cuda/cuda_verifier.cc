#include "cuda_verifier.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "../../core/reference_gemm.h"
#include "cuda_check.h"
#include "kernel_dtype_codes.h"
#include "nvrtc_compiler.h"

namespace gemmtune::cuda {

namespace {

// Mirrors gt_verify_result in kernels/verify.cuh.
struct VerifyResult {
  unsigned long long wrong = 0;
  unsigned long long first_wrong = ~0ULL;
  unsigned largest_ratio_bits = 0;
  unsigned unwritten = 0;
};

constexpr unsigned kTile = 16;  // threads per block edge of both kernels

}  // namespace

std::vector<std::string> verify_options(const Problem& p, const CudaInfo& device) {
  auto define = [](const char* name, long long value) { return std::string("-D") + name + "=" + std::to_string(value); };
  return {"--gpu-architecture=" + device.arch(),
          "-std=c++17",
          "-default-device",
          define("GT_IN", input_code(p.a_type())),
          define("GT_OUT", output_code(p.c_type())),
          define("GT_A_ROW", p.a_layout() == Layout::row_major),
          define("GT_B_ROW", p.b_layout() == Layout::row_major)};
}

namespace {

template <class T>
Status device_alloc(T** ptr, std::size_t count, const char* what) {
  return cuda::check(cudaMalloc(reinterpret_cast<void**>(ptr), std::max<std::size_t>(count, 1) * sizeof(T)), what);
}

std::string at(std::int64_t i, std::int64_t j) {
  std::string out = "(";
  out += std::to_string(i);
  out += ", ";
  out += std::to_string(j);
  out += ')';
  return out;
}

std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.9g", value);
  return text;
}

}  // namespace

DeviceVerifier::~DeviceVerifier() { release(); }

void DeviceVerifier::release() {
  for (void* p : {static_cast<void*>(products_), static_cast<void*>(a_norms_), static_cast<void*>(b_norms_), c_initial_,
                  result_}) {
    if (p != nullptr) cudaFree(p);
  }
  products_ = a_norms_ = b_norms_ = nullptr;
  c_initial_ = result_ = nullptr;
}

Status DeviceVerifier::prepare(const CudaInfo& device, const Problem& p, const void* a, const void* b,
                               const TestBuffers& host) {
  release();
  problem_.emplace(p);
  GEMMTUNE_ASSIGN_OR_RETURN(CubinArtifact artifact, obtain_cubin(verify_source(), verify_options(p, device)));
  module_ = std::make_unique<CudaModule>();
  GEMMTUNE_RETURN_IF_ERROR(module_->load(device.index, artifact.cubin));
  GEMMTUNE_ASSIGN_OR_RETURN(CUfunction reference, module_->function("gemmtune_reference"));
  GEMMTUNE_ASSIGN_OR_RETURN(compare_, module_->function("gemmtune_compare"));
  const std::size_t m = std::size_t(p.m()), n = std::size_t(p.n());
  GEMMTUNE_RETURN_IF_ERROR(device_alloc(&products_, m * n, "cudaMalloc(reference)"));
  GEMMTUNE_RETURN_IF_ERROR(device_alloc(&a_norms_, m, "cudaMalloc(reference norms)"));
  GEMMTUNE_RETURN_IF_ERROR(device_alloc(&b_norms_, n, "cudaMalloc(reference norms)"));
  GEMMTUNE_RETURN_IF_ERROR(cuda::check(cudaMalloc(&result_, sizeof(VerifyResult)), "cudaMalloc(verify result)"));
  const std::size_t c_bytes = std::size_t(p.c_elements()) * dtype_size(p.c_type());
  GEMMTUNE_RETURN_IF_ERROR(cuda::check(cudaMalloc(&c_initial_, std::max<std::size_t>(c_bytes, 1)), "cudaMalloc(initial C)"));
  GEMMTUNE_RETURN_IF_ERROR(
      cuda::check(cudaMemcpy(c_initial_, host.c_initial(), c_bytes, cudaMemcpyHostToDevice), "copy initial C"));
  if (m == 0 || n == 0) return Status::ok();
  long long mm = p.m(), nn = p.n(), k = p.k(), lda = p.lda(), ldb = p.ldb();
  void* params[] = {const_cast<void**>(&a), const_cast<void**>(&b), &products_, &a_norms_, &b_norms_,
                    &mm, &nn, &k, &lda, &ldb};
  GEMMTUNE_RETURN_IF_ERROR(module_->make_current());
  GEMMTUNE_RETURN_IF_ERROR(check_driver(driver().launch_kernel(reference, unsigned((n + kTile - 1) / kTile),
                                                               unsigned((m + kTile - 1) / kTile), 1, kTile, kTile, 1, 0,
                                                               nullptr, params, nullptr),
                                        "cuLaunchKernel(gemmtune_reference)"));
  return cuda::check(cudaDeviceSynchronize(), "the reference kernel");
}

VerifyOutcome DeviceVerifier::check(const void* c, const TestBuffers& host, void* stream) {
  VerifyOutcome outcome;
  const Problem& p = *problem_;
  if (p.m() == 0 || p.n() == 0) {
    outcome.ok = true;
    return outcome;
  }
  auto failed = [&outcome](const Status& s) {
    outcome.reason = "device check: " + s.message();
    return outcome;
  };
  const VerifyResult fresh;
  if (Status s = cuda::check(cudaMemcpy(result_, &fresh, sizeof fresh, cudaMemcpyHostToDevice), "reset verify result");
      !s.is_ok()) {
    return failed(s);
  }
  const BoundTerms t = bound_terms(p);
  long long m = p.m(), n = p.n(), ldc = p.ldc();
  double alpha = p.alpha(), beta = p.beta(), per_magnitude = t.per_magnitude, f32_unit = t.f32_unit,
         output_unit = t.output_unit, output_floor = t.output_floor;
  void* params[] = {const_cast<void**>(&c), &c_initial_, &products_, &a_norms_, &b_norms_, &m, &n, &ldc, &alpha, &beta,
                    &per_magnitude, &f32_unit, &output_unit, &output_floor, &result_};
  if (Status s = module_->make_current(); !s.is_ok()) return failed(s);
  Status launched = check_driver(
      driver().launch_kernel(compare_, unsigned((n + kTile - 1) / kTile), unsigned((m + kTile - 1) / kTile), 1, kTile,
                             kTile, 1, 0, static_cast<CUstream>(stream), params, nullptr),
      "cuLaunchKernel(gemmtune_compare)");
  if (!launched.is_ok()) return failed(launched);
  VerifyResult result;
  if (Status s = cuda::check(cudaStreamSynchronize(static_cast<cudaStream_t>(stream)), "the compare kernel"); !s.is_ok()) {
    return failed(s);
  }
  if (Status s = cuda::check(cudaMemcpy(&result, result_, sizeof result, cudaMemcpyDeviceToHost), "read verify result");
      !s.is_ok()) {
    return failed(s);
  }
  float ratio = 0;
  std::memcpy(&ratio, &result.largest_ratio_bits, sizeof ratio);
  outcome.error = ratio;
  if (result.wrong == 0) {
    outcome.ok = true;
    return outcome;
  }
  // Name the first wrong element as the host verifier would: its value, the expected one, the bound.
  const std::int64_t i = std::int64_t(result.first_wrong / std::uint64_t(p.n()));
  const std::int64_t j = std::int64_t(result.first_wrong % std::uint64_t(p.n()));
  double product = 0, a_norm = 0, b_norm = 0;
  cudaMemcpy(&product, products_ + result.first_wrong, sizeof product, cudaMemcpyDeviceToHost);
  cudaMemcpy(&a_norm, a_norms_ + i, sizeof a_norm, cudaMemcpyDeviceToHost);
  cudaMemcpy(&b_norm, b_norms_ + j, sizeof b_norm, cudaMemcpyDeviceToHost);
  const std::int64_t index = p.c_index(i, j);
  const double initial = p.beta() != 0.0 ? load_as_double(host.c_initial(), p.c_type(), index) : 0.0;
  const double expected = p.alpha() * product + p.beta() * initial;
  // The element as the kernel left it, from the device (the host copy of C is not brought back).
  alignas(8) unsigned char got_bytes[8] = {};
  cudaMemcpy(got_bytes, static_cast<const unsigned char*>(c) + std::size_t(index) * dtype_size(p.c_type()),
             dtype_size(p.c_type()), cudaMemcpyDeviceToHost);
  const double got = load_as_double(got_bytes, p.c_type(), 0);
  const std::string count = std::to_string(result.wrong) + " element" + (result.wrong == 1 ? "" : "s") + " wrong";
  if (result.unwritten != 0 && p.beta() == 0.0 && (p.c_type() == DType::s32 || std::isnan(got))) {
    outcome.reason = "element " + at(i, j) + " was not written (" + count + ")";
  } else {
    outcome.reason = "element " + at(i, j) + " is " + number(got) + ", expected " + number(expected) + " (bound " +
                     number(element_bound(p, product, a_norm * b_norm, initial)) + "; " + count + ")";
  }
  return outcome;
}

}  // namespace gemmtune::cuda
