// gemmtune's own GPU kernels launch overlapped with the previous kernel in the stream
// (programmatic dependent launch, GEMMTUNE_PDL). A GEMM whose A or B is the output of the GEMM
// just before it on the same stream must read that output, not what the buffer held before:
// here the buffer holds NaN before the first GEMM writes it, so an early read shows. And
// GEMMTUNE_PDL's values (no GPU needed).
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>

#include "backends/cuda/cuda_backends.h"
#include "backends/cuda/launch_overlap.h"
#include "backends/cuda/skinny_gemv.h"
#include "core/scalar_convert.h"
#include "cuda/launch_helpers.h"

namespace gemmtune::cuda {
namespace {

TEST(LaunchOverlap, ReadsItsThreeValuesAndRefusesOthersNamingTheVariable) {
  EXPECT_EQ(*parse_launch_overlap(nullptr), LaunchOverlap::on);
  EXPECT_EQ(*parse_launch_overlap(""), LaunchOverlap::on);
  EXPECT_EQ(*parse_launch_overlap("on"), LaunchOverlap::on);
  EXPECT_EQ(*parse_launch_overlap("off"), LaunchOverlap::off);
  EXPECT_EQ(*parse_launch_overlap("weights"), LaunchOverlap::weights);
  int refused = 0;
  for (const char* bad : {"1", "ON", "weight", "on "}) {
    auto parsed = parse_launch_overlap(bad);
    ASSERT_FALSE(parsed.is_ok()) << bad;
    EXPECT_EQ(parsed.status().code(), ErrorCode::invalid_argument);
    EXPECT_NE(parsed.status().message().find("GEMMTUNE_PDL"), std::string::npos) << parsed.status().message();
    EXPECT_NE(parsed.status().message().find(bad), std::string::npos) << parsed.status().message();
    ++refused;
  }
  EXPECT_EQ(refused, 4);
}

using Bf16 = std::uint16_t;

std::vector<Bf16> random_bf16(std::size_t count, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  std::vector<Bf16> out(count);
  for (Bf16& v : out) v = float_to_bf16_bits(value(rng));
  return out;
}

Problem bf16_nt(std::int64_t m, std::int64_t n, std::int64_t k) {
  return testing::make_problem(m, n, k, DType::bf16, "nt", DType::bf16);
}

// Whether c (bf16, packed m x n) is alpha·A·B of `p` within bf16 rounding, A and B on the host.
::testing::AssertionResult matches(const Problem& p, const std::vector<Bf16>& a, const std::vector<Bf16>& b,
                                   const std::vector<Bf16>& c) {
  std::vector<double> ref(std::size_t(p.m() * p.n()));
  double sum_squares = 0;
  for (std::int64_t i = 0; i < p.m(); ++i) {
    for (std::int64_t j = 0; j < p.n(); ++j) {
      double s = 0;
      for (std::int64_t q = 0; q < p.k(); ++q) {
        s += double(bf16_bits_to_float(a[std::size_t(p.a_index(i, q))])) *
             double(bf16_bits_to_float(b[std::size_t(p.b_index(q, j))]));
      }
      ref[std::size_t(i * p.n() + j)] = s;
      sum_squares += s * s;
    }
  }
  const double tolerance = 0.02 * std::sqrt(sum_squares / double(ref.size())) + 1e-3;
  for (std::size_t e = 0; e < ref.size(); ++e) {
    const double got = bf16_bits_to_float(c[e]);
    if (!(std::fabs(got - ref[e]) <= tolerance)) {
      return ::testing::AssertionFailure() << p.describe() << ": C[" << e << "] = " << got << ", expected " << ref[e];
    }
  }
  return ::testing::AssertionSuccess();
}

template <class T>
std::vector<T> to_host(const testing::DeviceBuffer& buffer, std::size_t count) {
  std::vector<T> out(count);
  EXPECT_EQ(cudaMemcpy(out.data(), buffer.ptr, count * sizeof(T), cudaMemcpyDeviceToHost), cudaSuccess);
  return out;
}

// D = X·Wᵀ (the wgmma family, 256 x 384 x 512), then on the same stream a GEMM that reads D as
// `role` ('A' or 'B'), ten times, with D set to NaN before each first GEMM. Returns how many
// rounds of the second GEMM matched.
int chain(const Backend& second_backend, const KernelConfig& second_config, const Problem& second, char role) {
  auto wgmma = make_wgmma_backend(find_device("cuda:0")->cuda);
  const Problem first = bf16_nt(256, 384, 512);
  auto first_kernel = wgmma->prepare(first, wgmma->configs(first, SearchSpace::default_space).at(0));
  auto second_kernel = second_backend.prepare(second, second_config);
  EXPECT_TRUE(first_kernel.is_ok()) << first_kernel.status().message();
  EXPECT_TRUE(second_kernel.is_ok()) << second_config.to_string() << ": " << second_kernel.status().message();
  if (!first_kernel.is_ok() || !second_kernel.is_ok()) return 0;

  const std::vector<Bf16> x = random_bf16(std::size_t(first.a_elements()), 1);
  const std::vector<Bf16> w = random_bf16(std::size_t(first.b_elements()), 2);
  const std::size_t other_count = std::size_t(role == 'A' ? second.b_elements() : second.a_elements());
  const std::vector<Bf16> other = random_bf16(other_count, 3);
  testing::DeviceBuffer dx(x.size() * 2), dw(w.size() * 2), dd(std::size_t(first.c_elements()) * 2),
      dother(other.size() * 2), de(std::size_t(second.c_elements()) * 2);
  EXPECT_EQ(cudaMemcpy(dx.ptr, x.data(), x.size() * 2, cudaMemcpyHostToDevice), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(dw.ptr, w.data(), w.size() * 2, cudaMemcpyHostToDevice), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(dother.ptr, other.data(), other.size() * 2, cudaMemcpyHostToDevice), cudaSuccess);
  cudaStream_t stream = nullptr;
  EXPECT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  int matched = 0;
  for (int round = 0; round < 10; ++round) {
    EXPECT_EQ(cudaMemsetAsync(dd.ptr, 0xff, std::size_t(first.c_elements()) * 2, stream), cudaSuccess);  // NaN
    const Status ran_first = (*first_kernel)->run({dx.ptr, dw.ptr, dd.ptr, stream});
    const void* a = role == 'A' ? dd.ptr : dother.ptr;
    const void* b = role == 'B' ? dd.ptr : dother.ptr;
    const Status ran_second = (*second_kernel)->run({a, b, de.ptr, stream});
    EXPECT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    EXPECT_TRUE(ran_first.is_ok() && ran_second.is_ok()) << ran_first.message() << ran_second.message();
    const std::vector<Bf16> d = to_host<Bf16>(dd, std::size_t(first.c_elements()));
    const std::vector<Bf16> e = to_host<Bf16>(de, std::size_t(second.c_elements()));
    const ::testing::AssertionResult ok =
        role == 'A' ? matches(second, d, other, e) : matches(second, other, d, e);
    EXPECT_TRUE(ok) << second_config.to_string() << ", round " << round;
    if (ok) ++matched;
  }
  cudaStreamDestroy(stream);
  return matched;
}

// The first default config of each kernel of the family (the tensor-core kernel, and gemv
// where it is offered).
std::vector<KernelConfig> first_of_each_kernel(const Backend& backend, const Problem& p) {
  std::vector<KernelConfig> picked;
  for (const KernelConfig& c : backend.configs(p, SearchSpace::default_space)) {
    bool seen = false;
    for (const KernelConfig& q : picked) seen = seen || q.kernel == c.kernel;
    if (!seen) picked.push_back(c);
  }
  return picked;
}

TEST(OverlappedLaunch, AGemmReadsAsItsBTheOutputOfTheGemmJustBefore) {
  SKIP_WITHOUT_HOPPER();
  const CudaInfo device = find_device("cuda:0")->cuda;
  int rounds = 0, expected = 0;
  // D is 256 x 384: as an nt B it is n = 256 rows of k = 384.
  for (std::int64_t m : {4, 16}) {
    auto skinny = make_skinny_backend(device);
    const Problem p = bf16_nt(m, 256, 384);
    for (const KernelConfig& c : first_of_each_kernel(*skinny, p)) {
      rounds += chain(*skinny, c, p, 'B');
      expected += 10;
    }
  }
  auto wgmma = make_wgmma_backend(device);
  const Problem p = bf16_nt(128, 256, 384);
  rounds += chain(*wgmma, wgmma->configs(p, SearchSpace::default_space).at(0), p, 'B');
  expected += 10;
  EXPECT_EQ(rounds, expected);
  EXPECT_GE(expected, 40);  // skinny's two kernels at m = 4, its tensor-core one at 16, wgmma
}

TEST(OverlappedLaunch, AGemmReadsAsItsATheOutputOfTheGemmJustBefore) {
  SKIP_WITHOUT_HOPPER();
  const CudaInfo device = find_device("cuda:0")->cuda;
  auto wgmma = make_wgmma_backend(device);
  const Problem p = bf16_nt(256, 128, 384);  // A = D, 256 x 384
  EXPECT_EQ(chain(*wgmma, wgmma->configs(p, SearchSpace::default_space).at(0), p, 'A'), 10);
  auto skinny = make_skinny_backend(device);
  ProblemSpec spec = bf16_nt(16, 256, 384).spec();
  spec.lda = 384;  // the first 16 rows of D
  const Problem q = *Problem::create(spec);
  EXPECT_EQ(chain(*skinny, skinny->configs(q, SearchSpace::default_space).at(0), q, 'A'), 10);
}

// Every default wgmma config, swapped (the weights in A') and not, in a cluster or alone, reads
// an A that the GEMM just before it wrote. Under GEMMTUNE_PDL=weights (the ctest entry
// overlapped_launch_weights) this checks that only the weights go out before the wait.
TEST(OverlappedLaunch, EveryWgmmaConfigReadsAsItsATheOutputOfTheGemmJustBefore) {
  SKIP_WITHOUT_HOPPER();
  const CudaInfo device = find_device("cuda:0")->cuda;
  auto wgmma = make_wgmma_backend(device);
  int rounds = 0, expected = 0, swapped = 0;
  for (std::int64_t m : {256, 64}) {
    ProblemSpec spec = bf16_nt(m, 128, 384).spec();
    spec.lda = 384;  // the first m rows of D (256 x 384)
    const Problem p = *Problem::create(spec);
    for (const KernelConfig& c : wgmma->configs(p, SearchSpace::default_space)) {
      rounds += chain(*wgmma, c, p, 'A');
      expected += 10;
      swapped += c.to_string().find("swap=1") != std::string::npos;
    }
  }
  EXPECT_EQ(rounds, expected);
  EXPECT_GE(expected, 40);
  EXPECT_GE(swapped, 1);
  std::printf("launch mode %s: %d rounds of %d wgmma configs (%d swapped) read A after the GEMM that wrote it\n",
              std::string(launch_overlap_name(launch_overlap())).c_str(), rounds, expected / 10, swapped);
}

}  // namespace
}  // namespace gemmtune::cuda
