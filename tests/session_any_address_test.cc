// A call whose operands the installed kernel cannot read where they lie (on a GPU: a family
// that moves 16-byte pieces, given a view off that grid) is run by a backend that reads any
// address, through Session::gemm and through a multi-kernel op alike. CI has no GPU, so here a
// CPU backend that refuses such calls stands in for wgmma; tests/gpu/gpu_test.cc has the real
// families.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "backends/cpu/cpu_backends.h"
#include "core/reference_gemm.h"
#include "core/test_buffers.h"
#include "gemmtune/op.h"
#include "session/session_testing.h"

namespace gemmtune {
namespace {

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

struct Counts {
  std::atomic<int> refused{0};     // calls the picky kernels refused
  std::atomic<int> ran_picky{0};   // calls they ran
  std::atomic<int> ran_any{0};     // calls the backend that reads any address ran
  std::atomic<int> prepared_any{0};
};

// The reference backend's kernels under another name; `picky` ones refuse, before touching
// anything, a call with an operand that is not 16-byte aligned, as wgmma's TMA does.
class CountingKernel final : public Kernel {
 public:
  CountingKernel(std::unique_ptr<Kernel> inner, bool picky, Counts& counts)
      : inner_(std::move(inner)), picky_(picky), counts_(counts) {}
  Status run(const GemmArgs& args) override {
    if (picky_ && !(aligned16(args.a) && aligned16(args.b) && aligned16(args.c))) {
      ++counts_.refused;
      return unsupported("picky kernel: an operand is not 16-byte aligned");
    }
    ++(picky_ ? counts_.ran_picky : counts_.ran_any);
    return inner_->run(args);
  }

 private:
  std::unique_ptr<Kernel> inner_;
  bool picky_;
  Counts& counts_;
};

class CountingBackend final : public Backend {
 public:
  CountingBackend(std::string name, bool picky, Counts& counts)
      : inner_(cpu::make_reference_backend()), name_(std::move(name)), picky_(picky), counts_(counts) {}
  std::string_view name() const override { return name_; }
  std::string version() const override { return "1"; }
  std::vector<KernelConfig> configs(const Problem& p, SearchSpace space) const override {
    return inner_->configs(p, space);
  }
  Status can_implement(const Problem& p, const KernelConfig& c) const override { return inner_->can_implement(p, c); }
  Result<std::unique_ptr<Kernel>> prepare(const Problem& p, const KernelConfig& c) const override {
    GEMMTUNE_ASSIGN_OR_RETURN(auto inner, inner_->prepare(p, c));
    if (!picky_) ++counts_.prepared_any;
    return std::unique_ptr<Kernel>(std::make_unique<CountingKernel>(std::move(inner), picky_, counts_));
  }
  bool reads_any_address() const override { return !picky_; }

 private:
  std::unique_ptr<Backend> inner_;
  std::string name_;
  bool picky_;
  Counts& counts_;
};

// A session that tunes among the picky backend alone, with `anywhere` beside it or not.
std::unique_ptr<Session> session_with(Counts& counts, bool anywhere) {
  SessionOptions options;
  options.store.mode = StoreMode::off;
  options.tuning.timing.samples = 1;
  options.tuning.timing.min_sample_ms = 0.05;
  options.tuning.timing.warmup_runs = 0;
  options.tuning.backends = {"picky"};
  BackendList backends;
  backends.push_back(std::make_unique<CountingBackend>("picky", true, counts));
  if (anywhere) backends.push_back(std::make_unique<CountingBackend>("anywhere", false, counts));
  auto session = create_session(options, *find_device("cpu"), std::move(backends));
  EXPECT_TRUE(session.is_ok()) << session.status().to_string();
  return std::move(session).value();
}

// Operands of `p` laid `offset` bytes past a 64-byte boundary, each where the test says.
struct PlacedOperands {
  PlacedOperands(const Problem& p, std::uint64_t seed) : buffers(p, seed), expected(std::size_t(p.c_elements())) {
    std::memcpy(expected.data(), buffers.c_initial(), expected.size() * sizeof(float));
    reference_gemm(p, buffers.a(), buffers.b(), expected.data());
    a_store.resize(std::size_t(p.a_elements()) + 32);
    b_store.resize(std::size_t(p.b_elements()) + 32);
    c_store.resize(expected.size() + 32);
  }
  // Copies A, B and the initial C to `a_off`, `b_off`, `c_off` floats past an aligned start.
  void place(std::size_t a_off, std::size_t b_off, std::size_t c_off) {
    a = first_aligned(a_store) + a_off;
    b = first_aligned(b_store) + b_off;
    c = first_aligned(c_store) + c_off;
    std::memcpy(a, buffers.a(), a_count() * sizeof(float));
    std::memcpy(b, buffers.b(), b_count() * sizeof(float));
    std::memcpy(c, buffers.c_initial(), expected.size() * sizeof(float));
  }
  void expect_c_matches(const char* what) const {
    for (std::size_t i = 0; i < expected.size(); ++i) ASSERT_NEAR(c[i], expected[i], 1e-4) << what << ", element " << i;
  }
  std::size_t a_count() const { return a_store.size() - 32; }
  std::size_t b_count() const { return b_store.size() - 32; }
  static float* first_aligned(std::vector<float>& v) {
    auto address = reinterpret_cast<std::uintptr_t>(v.data());
    return v.data() + (64 - address % 64) % 64 / sizeof(float);
  }
  TestBuffers buffers;
  std::vector<float> expected, a_store, b_store, c_store;
  float *a = nullptr, *b = nullptr, *c = nullptr;
};

TEST(SessionAnyAddress, ACallTheKernelRefusesWhereItsOperandsLieRunsOnABackendThatReadsAnyAddress) {
  Counts counts;
  auto session = session_with(counts, true);
  const Problem p = *Problem::create(33, 17, 21, DType::f32);
  PlacedOperands operands(p, 7);
  operands.place(0, 0, 0);
  ASSERT_TRUE(session->gemm(p, operands.a, operands.b, operands.c).is_ok());
  operands.expect_c_matches("aligned");
  ASSERT_EQ(session->pick(p)->backend, "picky");
  const int picky_before = counts.ran_picky;

  // A, then B, then C one float off the grid; then all three. Each is refused and run elsewhere.
  int checked = 0;
  for (auto [a_off, b_off, c_off] : {std::tuple{1, 0, 0}, std::tuple{0, 2, 0}, std::tuple{0, 0, 3}, std::tuple{1, 1, 1}}) {
    operands.place(std::size_t(a_off), std::size_t(b_off), std::size_t(c_off));
    const Status status = session->gemm(p, operands.a, operands.b, operands.c);
    ASSERT_TRUE(status.is_ok()) << status.to_string();
    operands.expect_c_matches("off the grid");
    ++checked;
  }
  EXPECT_EQ(checked, 4);
  EXPECT_EQ(counts.refused, 4);
  EXPECT_EQ(counts.ran_any, 4);
  EXPECT_EQ(counts.prepared_any, 1) << "the kernel for such calls is prepared once and kept";
  EXPECT_EQ(counts.ran_picky, picky_before);

  // Aligned again: the tuned kernel serves, and the pick is unchanged.
  operands.place(0, 0, 0);
  ASSERT_TRUE(session->gemm(p, operands.a, operands.b, operands.c).is_ok());
  operands.expect_c_matches("aligned again");
  EXPECT_EQ(counts.ran_picky, picky_before + 1);
  EXPECT_EQ(session->pick(p)->backend, "picky");
}

TEST(SessionAnyAddress, WithoutABackendThatReadsAnyAddressTheRefusalIsReturned) {
  Counts counts;
  auto session = session_with(counts, false);
  const Problem p = *Problem::create(8, 8, 8, DType::f32);
  PlacedOperands operands(p, 8);
  operands.place(1, 0, 0);
  const Status status = session->gemm(p, operands.a, operands.b, operands.c);
  EXPECT_EQ(status.code(), ErrorCode::unsupported);
  EXPECT_NE(status.message().find("picky kernel: an operand is not 16-byte aligned"), std::string::npos)
      << status.message();
  EXPECT_NE(status.message().find("no backend that reads operands at any address"), std::string::npos)
      << status.message();
}

TEST(SessionAnyAddress, AMultiKernelOpRunsSuchACallOnABackendThatReadsAnyAddressToo) {
  Counts counts;
  auto session = session_with(counts, true);
  ProblemSpec family;
  family.m = kDynamic;
  family.n = 24;
  family.k = 40;
  GemmOpOptions options;
  options.hints = {16, 64};
  options.persist_routes = false;
  auto op = GemmOp::create(*session, family, options);
  ASSERT_TRUE(op.is_ok()) << op.status().to_string();
  int checked = 0;
  for (std::int64_t m : {16, 40}) {
    const Problem p = *(*op)->problem_at(m, 24, 40);
    PlacedOperands operands(p, std::uint64_t(m));
    operands.place(0, 1, 0);
    const int refused = counts.refused;
    const Status status = (*op)->run(m, 24, 40, operands.a, operands.b, operands.c);
    ASSERT_TRUE(status.is_ok()) << status.to_string();
    operands.expect_c_matches("through the op");
    EXPECT_EQ(counts.refused, refused + 1);
    ++checked;
  }
  EXPECT_EQ(checked, 2);
  EXPECT_EQ(counts.ran_any, 2);
}

}  // namespace
}  // namespace gemmtune
