// The GPU harness's reference and checker (kernels/verify.cuh) run on the host, thread by
// thread, against the host verifier: the same products, the same norms, the same verdict on a
// correct C, on a C wrong in one element of any row, on an unwritten element and at either
// side of an element's bound. Runs without a GPU.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "backends/cuda/cuda_verifier.h"
#include "core/reference_gemm.h"
#include "cuda/h100.h"
#include "core/test_buffers.h"
#include "core/verify.h"

#define __global__
#define __device__
#define __forceinline__ inline
#define GT_KERNEL_LINKAGE

namespace verify_emulation {

struct Dim3 {
  unsigned x = 0, y = 0, z = 0;
};
inline Dim3 threadIdx, blockIdx, blockDim;

inline double __longlong_as_double(long long bits) { return std::bit_cast<double>(bits); }
inline float __uint_as_float(unsigned bits) { return std::bit_cast<float>(bits); }
inline unsigned __float_as_uint(float value) { return std::bit_cast<unsigned>(value); }
// One emulated thread at a time: the atomics are plain read-modify-writes.
template <class T>
T atomicAdd(T* p, T v) {
  const T old = *p;
  *p = old + v;
  return old;
}
template <class T>
T atomicMin(T* p, T v) {
  const T old = *p;
  *p = v < old ? v : old;
  return old;
}
template <class T>
T atomicMax(T* p, T v) {
  const T old = *p;
  *p = v > old ? v : old;
  return old;
}
template <class T>
T atomicOr(T* p, T v) {
  const T old = *p;
  *p = old | v;
  return old;
}
using std::fabs;
using std::isinf;
using std::isnan;
using std::sqrt;

// Runs `kernel` on a grid of 16×16 blocks covering m × n, one thread after another.
template <class Kernel, class... Args>
void launch(Kernel kernel, std::int64_t m, std::int64_t n, Args... args) {
  blockDim = {16, 16, 1};
  for (unsigned by = 0; by < unsigned((m + 15) / 16); ++by) {
    for (unsigned bx = 0; bx < unsigned((n + 15) / 16); ++bx) {
      blockIdx = {bx, by, 0};
      for (unsigned ty = 0; ty < 16; ++ty) {
        for (unsigned tx = 0; tx < 16; ++tx) {
          threadIdx = {tx, ty, 0};
          kernel(args...);
        }
      }
    }
  }
}

}  // namespace verify_emulation

// One inclusion of the template per dtype and layout combination, each in its namespace.
#define GT_IN 2
#define GT_OUT 0
#define GT_A_ROW 1
#define GT_B_ROW 0
namespace verify_emulation::f32_nt {
#include "backends/cuda/kernels/verify.cuh"
}
#undef GT_IN
#undef GT_OUT
#undef GT_A_ROW
#undef GT_B_ROW
#define GT_IN 0
#define GT_OUT 0
#define GT_A_ROW 0
#define GT_B_ROW 1
namespace verify_emulation::f16_f32_tn {
#include "backends/cuda/kernels/verify.cuh"
}
#undef GT_IN
#undef GT_OUT
#undef GT_A_ROW
#undef GT_B_ROW
#define GT_IN 1
#define GT_OUT 2
#define GT_A_ROW 1
#define GT_B_ROW 1
namespace verify_emulation::bf16_nn {
#include "backends/cuda/kernels/verify.cuh"
}
#undef GT_IN
#undef GT_OUT
#undef GT_A_ROW
#undef GT_B_ROW
#define GT_IN 3
#define GT_OUT 3
#define GT_A_ROW 0
#define GT_B_ROW 0
namespace verify_emulation::s8_tt {
#include "backends/cuda/kernels/verify.cuh"
}
#undef GT_IN
#undef GT_OUT
#undef GT_A_ROW
#undef GT_B_ROW

namespace gemmtune {
namespace {

// The emulated checker's verdict on C in `buffers`.
struct DeviceVerdict {
  unsigned long long wrong, first_wrong;
  bool unwritten;
};

template <class In, class Out, class Result, class ReferenceKernel, class CompareKernel>
DeviceVerdict run_device_check(ReferenceKernel reference, CompareKernel compare, const Problem& p,
                               const TestBuffers& buffers, const gemmtune::Reference& host_reference) {
  std::vector<double> products(std::size_t(p.m() * p.n())), a_norms(std::size_t(p.m())), b_norms(std::size_t(p.n()));
  verify_emulation::launch(reference, p.m(), p.n(), static_cast<const In*>(buffers.a()),
                           static_cast<const In*>(buffers.b()), products.data(), a_norms.data(), b_norms.data(),
                           (long long)p.m(), (long long)p.n(), (long long)p.k(), (long long)p.lda(), (long long)p.ldb());
  EXPECT_EQ(products, host_reference.products) << "the device sums in the host's order";
  EXPECT_EQ(a_norms, host_reference.a_norms);
  EXPECT_EQ(b_norms, host_reference.b_norms);
  Result result{0, ~0ULL, 0, 0};
  const BoundTerms t = bound_terms(p);
  verify_emulation::launch(compare, p.m(), p.n(), static_cast<const Out*>(buffers.c()),
                           static_cast<const Out*>(buffers.c_initial()), static_cast<const double*>(products.data()),
                           static_cast<const double*>(a_norms.data()), static_cast<const double*>(b_norms.data()),
                           (long long)p.m(), (long long)p.n(), (long long)p.ldc(), p.alpha(), p.beta(),
                           t.per_magnitude, t.f32_unit, t.output_unit, t.output_floor, &result);
  return {result.wrong, result.first_wrong, result.unwritten != 0};
}

Problem make(DType in, DType out, const char* layout, double alpha, double beta) {
  ProblemSpec spec = Problem::create(70, 45, 130, in, layout)->spec();
  spec.c_type = out;
  spec.alpha = alpha;
  spec.beta = beta;
  return *Problem::create(spec);
}

// Runs the device checker (the emulated instance `NS`) and the host checker on the same C and
// expects the same verdict; returns the device's.
#define CHECK_BOTH(NS, p, buffers, reference)                                                           \
  run_device_check<verify_emulation::NS::gt_in_t, verify_emulation::NS::gt_out_t,                     \
                   verify_emulation::NS::gt_verify_result>(&verify_emulation::NS::gemmtune_reference, \
                                                           &verify_emulation::NS::gemmtune_compare, p, buffers, reference)

template <class Check>
int expect_same_verdicts(const Problem& p, Check device_check) {
  TestBuffers buffers(p, 11);
  const Reference reference = compute_reference(p, buffers);
  int verdicts = 0;
  // A correct C.
  reference_gemm(p, buffers.a(), buffers.b(), buffers.c());
  DeviceVerdict ok = device_check(buffers, reference);
  EXPECT_EQ(ok.wrong, 0u) << p.describe();
  EXPECT_TRUE(check_output(p, buffers, reference).ok) << p.describe() << ": " << check_output(p, buffers, reference).reason;
  ++verdicts;
  // One element wrong, in the middle of the last rows.
  const std::int64_t i = p.m() - 3, j = p.n() / 2, index = p.c_index(i, j);
  const double right = load_as_double(buffers.c(), p.c_type(), index);
  store_from_double(buffers.c(), p.c_type(), index, right + 1.0 + std::fabs(right) * 0.25);
  DeviceVerdict one = device_check(buffers, reference);
  EXPECT_EQ(one.wrong, 1u) << p.describe();
  EXPECT_EQ(one.first_wrong, std::uint64_t(i * p.n() + j));
  const VerifyOutcome host_one = check_output(p, buffers, reference);
  EXPECT_FALSE(host_one.ok);
  EXPECT_NE(host_one.reason.find("element (" + std::to_string(i) + ", " + std::to_string(j) + ")"), std::string::npos)
      << host_one.reason;
  ++verdicts;
  // An unwritten element (beta == 0: the poison is left).
  if (p.beta() == 0.0) {
    buffers.reset_c();
    reference_gemm(p, buffers.a(), buffers.b(), buffers.c());
    const TestBuffers poisoned(p, 11);  // reset_c of a fresh copy: every element poisoned
    std::memcpy(static_cast<char*>(buffers.c()) + index * std::int64_t(dtype_size(p.c_type())),
                static_cast<const char*>(poisoned.c()) + index * std::int64_t(dtype_size(p.c_type())),
                dtype_size(p.c_type()));
    DeviceVerdict unwritten = device_check(buffers, reference);
    EXPECT_EQ(unwritten.wrong, 1u);
    EXPECT_TRUE(unwritten.unwritten);
    EXPECT_NE(check_output(p, buffers, reference).reason.find("not written"), std::string::npos);
    ++verdicts;
  }
  return verdicts;
}

TEST(VerifyEmulation, TheDeviceCheckerAgreesWithTheHostOneInEveryDtype) {
  int verdicts = 0;
  verdicts += expect_same_verdicts(make(DType::f32, DType::f32, "nt", 1.0, 0.0), [](const TestBuffers& b, const Reference& r) {
    return CHECK_BOTH(f32_nt, make(DType::f32, DType::f32, "nt", 1.0, 0.0), b, r);
  });
  verdicts += expect_same_verdicts(make(DType::f16, DType::f32, "tn", -0.5, 0.75), [](const TestBuffers& b, const Reference& r) {
    return CHECK_BOTH(f16_f32_tn, make(DType::f16, DType::f32, "tn", -0.5, 0.75), b, r);
  });
  verdicts += expect_same_verdicts(make(DType::bf16, DType::bf16, "nn", 1.0, 0.0), [](const TestBuffers& b, const Reference& r) {
    return CHECK_BOTH(bf16_nn, make(DType::bf16, DType::bf16, "nn", 1.0, 0.0), b, r);
  });
  verdicts += expect_same_verdicts(make(DType::s8, DType::s32, "tt", 1.0, 0.0), [](const TestBuffers& b, const Reference& r) {
    return CHECK_BOTH(s8_tt, make(DType::s8, DType::s32, "tt", 1.0, 0.0), b, r);
  });
  EXPECT_EQ(verdicts, 3 + 2 + 3 + 3);
}

// Both checkers apply the same bound: an f32 element just inside it passes both, just outside
// it fails both.
TEST(VerifyEmulation, TheDeviceAndHostBoundsAreTheSame) {
  const Problem p = make(DType::f32, DType::f32, "nt", 1.0, 0.0);
  TestBuffers buffers(p, 5);
  const Reference reference = compute_reference(p, buffers);
  reference_gemm(p, buffers.a(), buffers.b(), buffers.c());
  int checked = 0;
  for (std::int64_t i : {0, 33, 69}) {
    const std::int64_t j = (i * 7) % p.n(), index = p.c_index(i, j);
    const double product = reference.products[std::size_t(i * p.n() + j)];
    const double bound = element_bound(p, product, reference.a_norms[std::size_t(i)] * reference.b_norms[std::size_t(j)], 0);
    for (double factor : {0.9, 1.1}) {
      store_from_double(buffers.c(), p.c_type(), index, product + factor * bound);
      const DeviceVerdict d = CHECK_BOTH(f32_nt, p, buffers, reference);
      const bool host_ok = check_output(p, buffers, reference).ok;
      EXPECT_EQ(d.wrong == 0, host_ok) << "factor " << factor << " at " << i << ", " << j;
      EXPECT_EQ(host_ok, factor < 1) << "factor " << factor;
      ++checked;
    }
    store_from_double(buffers.c(), p.c_type(), index, product);
  }
  EXPECT_EQ(checked, 6);
}

// The checker compiles with NVRTC for every input and output dtype and every layout (no GPU
// needed to compile).
TEST(VerifyEmulation, TheCheckerCompilesForEveryDtypeAndLayout) {
  cuda::testing::use_fresh_cubin_cache();
  int compiled = 0;
  const std::pair<DType, DType> types[] = {{DType::f32, DType::f32}, {DType::f16, DType::f16}, {DType::f16, DType::f32},
                                           {DType::bf16, DType::bf16}, {DType::bf16, DType::f32}, {DType::s8, DType::s32}};
  for (auto [in, out] : types) {
    for (const char* layout : {"nn", "nt", "tn", "tt"}) {
      const Problem p = make(in, out, layout, 1.0, 0.0);
      auto artifact = cuda::obtain_cubin(cuda::verify_source(), cuda::verify_options(p, cuda::testing::h100()));
      ASSERT_TRUE(artifact.is_ok()) << p.describe() << ": " << artifact.status().message();
      EXPECT_NE(artifact->cubin.find("gemmtune_compare"), std::string::npos);
      ++compiled;
    }
  }
  EXPECT_EQ(compiled, 24);
}

}  // namespace
}  // namespace gemmtune
