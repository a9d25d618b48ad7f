// The cost model's shortlist (core/model_shortlist.h): what a tuning with --benchmark top:K
// times of a ranking. Its invariants hold for any ranking, checked on random ones.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "tuning/model_shortlist.h"

namespace gemmtune {
namespace {

// A ranking as the tuner has it: families of the choices, best first, and their predicted log
// times, ascending.
struct Ranking {
  std::vector<int> family;
  std::vector<double> predicted;
};

Ranking random_ranking() {
  Ranking r;
  const int size = *rc::gen::inRange(0, 60);
  const int families = *rc::gen::inRange(1, 10);
  double log_time = *rc::gen::inRange(-5000, 5000) / 1000.0;
  for (int i = 0; i < size; ++i) {
    r.family.push_back(*rc::gen::inRange(0, families));
    log_time += *rc::gen::inRange(0, 300) / 1000.0;  // steps of up to 1.35x
    r.predicted.push_back(log_time);
  }
  return r;
}

std::vector<std::size_t> shortlist_of(const Ranking& r, std::size_t k, double band) {
  return model_shortlist(
      r.family.size(), k, [&](std::size_t i) { return r.family[i]; }, [&](std::size_t i) { return r.predicted[i]; },
      band);
}

RC_GTEST_PROP(ModelShortlist, HoldsTheTopKAndTheBestOfEveryFamilyWithinTheBand, ()) {
  const Ranking r = random_ranking();
  const std::size_t k = *rc::gen::inRange<std::size_t>(0, 12);
  const double band = *rc::gen::inRange(100, 400) / 100.0;
  const std::vector<std::size_t> chosen = shortlist_of(r, k, band);
  RC_ASSERT(std::is_sorted(chosen.begin(), chosen.end()));
  RC_ASSERT(std::adjacent_find(chosen.begin(), chosen.end()) == chosen.end());
  auto listed = [&](std::size_t i) { return std::find(chosen.begin(), chosen.end(), i) != chosen.end(); };
  for (std::size_t i = 0; i < r.family.size(); ++i) {
    const bool top = i < k;
    const bool family_first = std::find(r.family.begin(), r.family.begin() + std::ptrdiff_t(i), r.family[i]) ==
                              r.family.begin() + std::ptrdiff_t(i);
    const bool close = r.predicted[i] <= r.predicted[0] + std::log(band);
    // Listed exactly when in the top k or the best-ranked of its family and close.
    RC_ASSERT(listed(i) == (top || (family_first && close)));
  }
  // Every family the ranking has within the band is represented.
  for (std::size_t i = 0; i < r.family.size(); ++i) {
    if (r.predicted[i] > r.predicted[0] + std::log(band)) continue;
    bool represented = false;
    for (std::size_t c : chosen) represented = represented || r.family[c] == r.family[i];
    RC_ASSERT(represented);
  }
}

RC_GTEST_PROP(ModelShortlist, AWiderBandOrALargerKOnlyAddsChoices, ()) {
  const Ranking r = random_ranking();
  const std::size_t k = *rc::gen::inRange<std::size_t>(0, 12);
  const double band = *rc::gen::inRange(100, 400) / 100.0;
  const std::vector<std::size_t> base = shortlist_of(r, k, band);
  for (const std::vector<std::size_t>& wider : {shortlist_of(r, k + 1, band), shortlist_of(r, k, band * 1.5)}) {
    RC_ASSERT(std::includes(wider.begin(), wider.end(), base.begin(), base.end()));
  }
}

TEST(ModelShortlist, AFamilyTheTopKMissesJoinsWhenPredictedCloseAndOnlyThen) {
  // Family 7 ranks fifth, 1.4x the best's predicted time; family 9 sixth, at 3x.
  const Ranking r{{1, 1, 1, 1, 7, 9, 7},
                  {0.0, 0.05, 0.1, 0.2, std::log(1.4), std::log(3.0), std::log(3.1)}};
  EXPECT_EQ(shortlist_of(r, 3, 1.5), (std::vector<std::size_t>{0, 1, 2, 4}));
  EXPECT_EQ(shortlist_of(r, 3, 1.0), (std::vector<std::size_t>{0, 1, 2}));
  EXPECT_EQ(shortlist_of(r, 3, 4.0), (std::vector<std::size_t>{0, 1, 2, 4, 5}));
  EXPECT_EQ(shortlist_of(r, 5, 1.5), (std::vector<std::size_t>{0, 1, 2, 3, 4}));
}

TEST(ModelShortlist, CuBlasLtRanksAreOneFamilyAndEachNamedKernelIsOne) {
  KernelConfig first, second, stream, rows;
  first.rank = 1;
  second.rank = 2;
  stream.kernel = kKernelStream;
  rows.kernel = kKernelRows;
  EXPECT_EQ(kernel_family("cublaslt", first), kernel_family("cublaslt", second));
  EXPECT_NE(kernel_family("cpu", stream), kernel_family("cpu", rows));
  EXPECT_NE(kernel_family("cpu", stream), kernel_family("cpu", KernelConfig{}));  // the packed kernel
  EXPECT_NE(kernel_family("cpu", KernelConfig{}), kernel_family("onednn", KernelConfig{}));
}

}  // namespace
}  // namespace gemmtune
