// The order in which the tuner prepares its candidates: the backends' estimated prepare cost,
// costliest first, ties and candidates that prepare nothing in list order. A cold tuning's
// longest compiles then start first instead of last.
#include <gtest/gtest.h>

#include <vector>

#include "tuning/candidates.h"

namespace gemmtune {
namespace {

// Configs rank = 1..N; config i costs costs[i - 1] to prepare.
class CostedBackend final : public Backend {
 public:
  explicit CostedBackend(std::vector<double> costs) : costs_(std::move(costs)) {}
  std::string_view name() const override { return "costed"; }
  std::string version() const override { return "1"; }
  std::vector<KernelConfig> configs(const Problem&, SearchSpace) const override {
    std::vector<KernelConfig> configs(costs_.size());
    for (std::size_t i = 0; i < configs.size(); ++i) configs[i].rank = int(i) + 1;
    return configs;
  }
  Status can_implement(const Problem&, const KernelConfig&) const override { return Status::ok(); }
  Result<std::unique_ptr<Kernel>> prepare(const Problem&, const KernelConfig&) const override {
    return unsupported("not prepared in this test");
  }
  double prepare_cost(const Problem&, const KernelConfig& c) const override { return costs_[std::size_t(c.rank - 1)]; }

 private:
  std::vector<double> costs_;
};

std::vector<Candidate> candidates_of(const std::vector<const Backend*>& backends, const Problem& p) {
  std::vector<Candidate> out;
  for (const Backend* b : backends) {
    for (const KernelConfig& c : b->configs(p, SearchSpace::default_space)) out.push_back(candidate(*b, c));
  }
  return out;
}

TEST(PrepareOrder, CostliestFirstWithTiesAndFreeOnesInListOrder) {
  const Problem p = *Problem::create(ProblemSpec{.m = 8, .n = 8, .k = 8});
  CostedBackend cheap({0.3, 0.0, 1.2}), dear({2.5, 1.2, 0.0});
  std::vector<Candidate> list = candidates_of({&cheap, &dear}, p);
  ASSERT_EQ(list.size(), 6u);
  // cheap: 0 (0.3), 1 (0.0), 2 (1.2); dear: 3 (2.5), 4 (1.2), 5 (0.0)
  EXPECT_EQ(costliest_first(p, list, 0), (std::vector<std::size_t>{3, 2, 4, 0, 1, 5}));
  // A candidate that will not be prepared costs nothing, wherever its backend's estimate.
  list[3].report.status = ChoiceStatus::skipped;
  EXPECT_EQ(costliest_first(p, list, 0), (std::vector<std::size_t>{2, 4, 0, 1, 3, 5}));
  // Only the indices from `first` on.
  EXPECT_EQ(costliest_first(p, list, 4), (std::vector<std::size_t>{4, 5}));
}

// Backends without an estimate (cuBLASLt, the CPU libraries) keep their list order.
TEST(PrepareOrder, WithoutEstimatesTheListOrderStands) {
  const Problem p = *Problem::create(ProblemSpec{.m = 8, .n = 8, .k = 8});
  CostedBackend flat({0, 0, 0, 0});
  const std::vector<Candidate> list = candidates_of({&flat}, p);
  EXPECT_EQ(costliest_first(p, list, 0), (std::vector<std::size_t>{0, 1, 2, 3}));
  EXPECT_EQ(costliest_first(p, list, 1), (std::vector<std::size_t>{1, 2, 3}));
}

}  // namespace
}  // namespace gemmtune
