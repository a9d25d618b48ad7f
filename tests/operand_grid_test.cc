// The grids a kernel was tuned at, one for A and one for B in one word (core/operand_grid.h),
// and prepare_choice setting them by each operand's size (Backend::operand_grid_bytes).
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "backends/cpu/cpu_backends.h"
#include "core/operand_grid.h"
#include "core/operand_relocation.h"
#include "tuning/guarded_choice.h"

namespace gemmtune {
namespace {

RC_GTEST_PROP(OperandGrid, PackedMasksSayWhichOperandLiesOff, ()) {
  const auto mask = *rc::gen::map(rc::gen::inRange(0, 13), [](int bits) { return (std::uintptr_t(1) << bits) - 1; });
  const auto other = *rc::gen::map(rc::gen::inRange(0, 13), [](int bits) { return (std::uintptr_t(1) << bits) - 1; });
  const auto a = *rc::gen::arbitrary<std::uintptr_t>();
  const auto b = *rc::gen::arbitrary<std::uintptr_t>();
  const std::uintptr_t packed = pack_grid_masks({mask, other});
  RC_ASSERT(unpack_grid_masks(packed).a == mask);
  RC_ASSERT(unpack_grid_masks(packed).b == other);
  const bool off = (a & mask) != 0 || (b & other) != 0;
  RC_ASSERT(off_grid(reinterpret_cast<const void*>(a), reinterpret_cast<const void*>(b), packed) == off);
}

// The reference backend under a grid that depends on the operand's size, as the TMA families'
// does: 256 bytes past `small` bytes, 16 up to it.
class SizedGridBackend final : public Backend {
 public:
  explicit SizedGridBackend(std::int64_t small) : inner_(cpu::make_reference_backend()), small_(small) {}
  std::string_view name() const override { return "sized_grid"; }
  std::string version() const override { return "1"; }
  std::vector<KernelConfig> configs(const Problem& p, SearchSpace space) const override {
    return inner_->configs(p, space);
  }
  Status can_implement(const Problem& p, const KernelConfig& c) const override { return inner_->can_implement(p, c); }
  Result<std::unique_ptr<Kernel>> prepare(const Problem& p, const KernelConfig& c) const override {
    return inner_->prepare(p, c);
  }
  std::size_t operand_grid_bytes(std::int64_t operand_bytes) const override {
    return operand_bytes <= small_ ? 16 : 256;
  }

 private:
  std::unique_ptr<Backend> inner_;
  std::int64_t small_;
};

TEST(OperandGrid, EveryPreparedKernelCarriesAMaskForEachOperandBySize) {
  const SizedGridBackend backend(4096);
  struct Case {
    std::int64_t m, n, k;
    std::uintptr_t a_mask, b_mask;
  };
  int checked = 0;
  // f32: A is m × k, B k × n, 4 bytes an element.
  for (const Case& c : {Case{16, 512, 64, 15, 255}, Case{512, 16, 64, 255, 15}, Case{8, 8, 8, 15, 15},
                        Case{64, 64, 64, 255, 255}}) {
    const Problem p = *Problem::create(c.m, c.n, c.k, DType::f32, "nn");
    const KernelConfig config = backend.configs(p, SearchSpace::default_space).at(0);
    PreparedChoice prepared = prepare_choice(backend, p, config);
    ASSERT_NE(prepared.kernel, nullptr) << prepared.error.to_string();
    const OperandGridMasks masks = unpack_grid_masks(prepared.kernel->operand_grid_mask);
    EXPECT_EQ(masks.a, c.a_mask) << p.describe();
    EXPECT_EQ(masks.b, c.b_mask) << p.describe();
    ++checked;
  }
  // The CPU's own backends read any address: no grid at all.
  const Problem p = *Problem::create(64, 64, 64, DType::f32, "nn");
  auto reference = cpu::make_reference_backend();
  PreparedChoice plain = prepare_choice(*reference, p, reference->configs(p, SearchSpace::default_space).at(0));
  ASSERT_NE(plain.kernel, nullptr);
  EXPECT_EQ(plain.kernel->operand_grid_mask, 0u);
  EXPECT_EQ(checked, 4);
}

// The largest operand the session copies onto the grid: a 64th of the device's memory, never
// less than 64 MiB (a small device still copies what it did before the cap scaled).
RC_GTEST_PROP(OperandGrid, TheCopyCapIsA64thOfTheDevicesMemoryAndAtLeast64MiB, ()) {
  const std::int64_t memory = *rc::gen::inRange<std::int64_t>(0, std::int64_t(1) << 42);
  const std::int64_t cap = max_relocated_operand_bytes(memory);
  constexpr std::int64_t kFloor = std::int64_t(64) << 20;
  RC_ASSERT(cap >= kFloor);
  RC_ASSERT(cap >= memory / 64);
  RC_ASSERT(cap == kFloor || cap == memory / 64);
}

TEST(OperandGrid, TheCopyCapOfAnH200IsItsMemoryOver64) {
  const std::int64_t h200 = std::int64_t(140) << 30;  // about what an H200 reports
  EXPECT_EQ(max_relocated_operand_bytes(h200), h200 / 64);
  EXPECT_EQ(max_relocated_operand_bytes(std::int64_t(2) << 30), std::int64_t(64) << 20);
}

}  // namespace
}  // namespace gemmtune
