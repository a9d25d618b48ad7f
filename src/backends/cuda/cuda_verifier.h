// Every element of a GPU kernel's C checked on the device: the reference (kernels/verify.cuh,
// a plain double-accumulating loop) runs once per problem and operands, then each check
// compares all of C with it within src/core/verify.cc's element_bound, so a full check costs
// one pass over C instead of a host reference of the whole product.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "../../core/test_buffers.h"
#include "../../core/verify.h"
#include "cuda_module.h"
#include "gemmtune/device.h"
#include "gemmtune/problem.h"

namespace gemmtune::cuda {

// kernels/verify.cuh as embedded, and the NVRTC options of its instance for a problem.
std::string_view verify_source();
std::vector<std::string> verify_options(const Problem& problem, const CudaInfo& device);

class DeviceVerifier {
 public:
  DeviceVerifier() = default;
  DeviceVerifier(const DeviceVerifier&) = delete;
  DeviceVerifier& operator=(const DeviceVerifier&) = delete;
  ~DeviceVerifier();

  // Compiles (or finds cached) the checker for the problem's dtypes and layouts, and computes
  // the reference of device operands `a` and `b`; `host` holds C's initial values for beta.
  Status prepare(const CudaInfo& device, const Problem& problem, const void* a, const void* b,
                 const TestBuffers& host);
  // Checks device C (`c`, the problem's ldc) after a run; `host` holds C's initial values, which
  // name a wrong element's expected value in the reason (its value is read from `c`).
  VerifyOutcome check(const void* c, const TestBuffers& host, void* stream);

 private:
  void release();

  std::optional<Problem> problem_;
  std::unique_ptr<CudaModule> module_;
  CUfunction compare_ = nullptr;
  double* products_ = nullptr;
  double* a_norms_ = nullptr;
  double* b_norms_ = nullptr;
  void* c_initial_ = nullptr;
  void* result_ = nullptr;
};

}  // namespace gemmtune::cuda
