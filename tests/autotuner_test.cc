// The autotuner on fake backends that misbehave in every way a real one can without crashing
// the process: it must drop each with the reason and still pick a correct kernel.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <map>
#include <numeric>
#include <stdexcept>
#include <string>
#include <thread>

#include "tuning/autotuner.h"
#include "tuning/final_round.h"
#include "core/reference_gemm.h"

namespace gemmtune {
namespace {

enum class Fault { none, throw_in_prepare, fail_prepare, throw_in_run, fail_run, garbage, skip_last_row,
                   write_past_end, write_padding };

class FaultyKernel final : public Kernel {
 public:
  FaultyKernel(const Problem& p, Fault fault) : p_(p), fault_(fault) {}
  Status run(const GemmArgs& args) override {
    if (fault_ == Fault::throw_in_run) throw std::runtime_error("kernel exploded");
    if (fault_ == Fault::fail_run) return Status(ErrorCode::internal, "launch failed");
    reference_gemm(p_, args.a, args.b, args.c);
    auto* c = static_cast<float*>(args.c);
    switch (fault_) {
      case Fault::garbage: c[p_.c_index(p_.m() / 2, p_.n() / 2)] += 10.0f; break;
      case Fault::skip_last_row:
        for (std::int64_t j = 0; j < p_.n(); ++j) c[p_.c_index(p_.m() - 1, j)] = std::nanf("");
        break;
      case Fault::write_past_end: c[p_.c_elements()] = 1.0f; break;
      case Fault::write_padding: c[p_.n()] = 1.0f; break;  // ldc > n
      default: break;
    }
    return Status::ok();
  }

 private:
  Problem p_;
  Fault fault_;
};

class FaultyBackend final : public Backend {
 public:
  FaultyBackend(std::string name, std::vector<Fault> faults) : name_(std::move(name)), faults_(std::move(faults)) {}
  std::string_view name() const override { return name_; }
  std::string version() const override { return "test"; }
  std::vector<KernelConfig> configs(const Problem&, SearchSpace) const override {
    std::vector<KernelConfig> configs;
    for (std::size_t i = 0; i < faults_.size(); ++i) {
      KernelConfig c;
      c.rank = int(i) + 1;
      configs.push_back(c);
    }
    return configs;
  }
  Status can_implement(const Problem&, const KernelConfig& c) const override {
    return c.rank >= 1 && c.rank <= int(faults_.size()) ? Status::ok() : unsupported("no such rank");
  }
  Result<std::unique_ptr<Kernel>> prepare(const Problem& p, const KernelConfig& c) const override {
    const Fault fault = faults_[std::size_t(c.rank - 1)];
    if (fault == Fault::throw_in_prepare) throw std::runtime_error("compiler crashed");
    if (fault == Fault::fail_prepare) return Status(ErrorCode::unsupported, "does not compile");
    return std::unique_ptr<Kernel>(std::make_unique<FaultyKernel>(p, fault));
  }

 private:
  std::string name_;
  std::vector<Fault> faults_;
};

TuneOptions fast_options() {
  TuneOptions options;
  options.timing.samples = 2;
  options.timing.min_sample_ms = 0.05;
  options.timing.warmup_runs = 0;
  options.seed = 7;
  return options;
}

TEST(Autotuner, FaultyChoicesAreDroppedWithTheirReasonAndACorrectOneIsPicked) {
  ProblemSpec spec;
  spec.m = 12;
  spec.n = 10;
  spec.k = 9;
  spec.ldc = 11;  // room for padding writes
  const Problem problem = *Problem::create(spec);
  BackendList backends;
  backends.push_back(std::make_unique<FaultyBackend>(
      "faulty", std::vector<Fault>{Fault::throw_in_prepare, Fault::fail_prepare, Fault::throw_in_run, Fault::fail_run,
                                   Fault::garbage, Fault::skip_last_row, Fault::write_past_end, Fault::write_padding,
                                   Fault::none}));
  TuneOutcome outcome = autotune(problem, *find_device("cpu"), backends, fast_options());
  const auto& choices = outcome.report.choices;
  ASSERT_EQ(choices.size(), 9u);
  EXPECT_EQ(choices[0].status, ChoiceStatus::prepare_failed);
  EXPECT_NE(choices[0].reason.find("compiler crashed"), std::string::npos);
  EXPECT_EQ(choices[1].status, ChoiceStatus::prepare_failed);
  EXPECT_EQ(choices[2].status, ChoiceStatus::run_failed);
  EXPECT_NE(choices[2].reason.find("kernel exploded"), std::string::npos);
  EXPECT_EQ(choices[3].status, ChoiceStatus::run_failed);
  EXPECT_EQ(choices[4].status, ChoiceStatus::wrong_result);
  EXPECT_NE(choices[4].reason.find("expected"), std::string::npos) << choices[4].reason;
  EXPECT_NE(choices[4].reason.find("(bound "), std::string::npos) << choices[4].reason;
  EXPECT_EQ(choices[5].status, ChoiceStatus::wrong_result);
  EXPECT_NE(choices[5].reason.find("not written"), std::string::npos);
  EXPECT_EQ(choices[6].status, ChoiceStatus::wrong_result);
  EXPECT_NE(choices[6].reason.find("past the end"), std::string::npos);
  EXPECT_EQ(choices[7].status, ChoiceStatus::wrong_result);
  EXPECT_NE(choices[7].reason.find("padding"), std::string::npos);
  EXPECT_EQ(outcome.report.best, 8);
  ASSERT_NE(outcome.kernel, nullptr);
  EXPECT_NE(outcome.report.table().find("choices benchmarked in"), std::string::npos);
}

TEST(Autotuner, NoCorrectChoiceMeansNoKernelAndNoPick) {
  const Problem problem = *Problem::create(4, 4, 4, DType::f32);
  BackendList backends;
  backends.push_back(std::make_unique<FaultyBackend>("faulty", std::vector<Fault>{Fault::garbage}));
  TuneOutcome outcome = autotune(problem, *find_device("cpu"), backends, fast_options());
  EXPECT_EQ(outcome.report.best, -1);
  EXPECT_EQ(outcome.kernel, nullptr);
}

ChoiceReport timed(double us, double mad = 0) {
  ChoiceReport c;
  c.status = ChoiceStatus::ok;
  c.time_us = us;
  c.time_mad_us = mad;
  return c;
}

TEST(PickBest, TheFastestWinsOutsideTheNoiseBand) {
  EXPECT_EQ(pick_best({timed(10), timed(5), timed(7)}, 0.02), 1);
}

TEST(PickBest, AChoiceWithinTheNoiseBandThatComesFirstWins) {
  // 10.1 is within 2% of 10: the earlier choice is kept, so reruns pick the same kernel.
  EXPECT_EQ(pick_best({timed(10.1), timed(10.0)}, 0.02), 0);
  // A noisy fastest widens the band to twice its MAD.
  EXPECT_EQ(pick_best({timed(11.0), timed(10.0, 0.6)}, 0.02), 0);
  EXPECT_EQ(pick_best({timed(11.0), timed(10.0, 0.4)}, 0.02), 1);
}

TEST(PickByRounds, AnEarlierFinalistWithinTheBandRoundByRoundWins) {
  // Finalist 1 is 0.5% faster in every round: within a 1% band, the earlier one is kept.
  EXPECT_EQ(pick_by_rounds({{10.05, 20.1, 10.05}, {10.0, 20.0, 10.0}}, 0.01), 0);
  // 3% faster in every round: outside the band, the faster one wins.
  EXPECT_EQ(pick_by_rounds({{10.3, 20.6, 10.3}, {10.0, 20.0, 10.0}}, 0.01), 1);
  // The fastest is earliest: nothing before it to tie with.
  EXPECT_EQ(pick_by_rounds({{9.0, 9.0, 9.0}, {10.0, 10.0, 10.0}, {9.05, 9.05, 9.05}}, 0.01), 0);
}

TEST(PickByRounds, RatiosAreTakenRoundByRound) {
  // The machine slowed down for both during rounds 3 to 5; finalist 0 is 3% slower in each.
  const std::vector<double> later = {10.0, 10.0, 30.0, 30.0, 30.0};
  const std::vector<double> earlier = {10.3, 10.3, 30.9, 30.9, 30.9};
  EXPECT_EQ(pick_by_rounds({earlier, later}, 0.02), 1);
  // Equal in rounds 1 and 2, each disturbed in others: the medians of the times read 5%
  // apart, the median of the round-by-round ratios 1.0, within the band: the earlier one.
  EXPECT_EQ(pick_by_rounds({{9.0, 9.0, 10.0, 12.0, 12.0}, {9.0, 9.0, 12.0, 9.5, 9.5}}, 0.01), 0);
  // Rounds of unequal counts (a sample lost) are paired as far as both go.
  EXPECT_EQ(pick_by_rounds({{10.3, 10.3}, {10.0, 10.0, 10.0}}, 0.01), 1);
  EXPECT_EQ(pick_by_rounds({{10.0}}, 0.01), 0);
  // A kept choice wins within the band, ahead of the fixed order, and not beyond it.
  EXPECT_EQ(pick_by_rounds({{9.0, 9.0, 9.0}, {10.0, 10.0, 10.0}, {9.05, 9.05, 9.05}}, 0.01, 2), 2);
  EXPECT_EQ(pick_by_rounds({{9.0, 9.0, 9.0}, {10.0, 10.0, 10.0}, {9.05, 9.05, 9.05}}, 0.01, 1), 0);
}

TEST(Autotuner, TheFinalRoundPicksAChoiceItTimedAndReportsItsTimes) {
  const Problem problem = *Problem::create(16, 16, 16, DType::f32);
  const DeviceInfo device = *find_device("cpu");
  BackendList backends = create_backends(device);
  for (int finalists : {0, 3}) {
    TuneOptions options = fast_options();
    options.backends = {"cpu", "reference"};
    options.finalists = finalists;
    // Every choice timed in full: under a loaded CI machine one short sample can prune all but
    // one choice, and with one left there is no final round to check.
    options.prune_factor = 0;
    const TuneOutcome outcome = autotune(problem, device, backends, options);
    ASSERT_GE(outcome.report.best, 0) << finalists;
    ASSERT_NE(outcome.kernel, nullptr);
    const ChoiceReport& best = *outcome.report.best_choice();
    EXPECT_EQ(best.status, ChoiceStatus::ok);
    EXPECT_GT(best.time_us, 0);
    // Never the reference loop, which is far slower than every kernel of the cpu backend.
    EXPECT_NE(best.backend, "reference");
    // The finalists say how they compared with the fastest of them; the pick is one of them,
    // within the band.
    int finalists_seen = 0, timed = 0;
    for (const ChoiceReport& c : outcome.report.choices) {
      timed += c.status == ChoiceStatus::ok && c.time_us >= 0;
      if (c.final_ratio < 0) continue;
      ++finalists_seen;
      EXPECT_EQ(c.status, ChoiceStatus::ok);
    }
    // The three fastest, and each backend's fastest and first config beside them (cpu,
    // reference).
    if (finalists == 0) {
      EXPECT_EQ(finalists_seen, 0);
    } else {
      EXPECT_GE(finalists_seen, std::min(timed, 3));
      EXPECT_LE(finalists_seen, std::min(timed, 3 + 2 * 2));
      ASSERT_GT(best.final_ratio, 0);
      EXPECT_LE(best.final_ratio, 1 + options.noise_band);
      EXPECT_NE(outcome.report.table().find("final round"), std::string::npos);
    }
  }
}

TEST(FinalRoundMembers, TheFastestFewThenEachBackendsFastestThenEachLeadTimedInFull) {
  struct Choice {
    double time;
    std::string backend;
  };
  Choice a{3, "own"}, b{1, "own"}, c{2, "own"}, d{5, "lib"}, e{4, "lib"}, untimed{0, "lib"};
  auto time = [](const Choice* x) { return x->time; };
  auto backend = [](const Choice* x) { return x->backend; };
  // The two fastest (b, c), then lib's fastest (e) and lib's lead (d), timed in full; the
  // untimed lead and b (already in) add nothing.
  EXPECT_EQ(final_round_members<Choice>({&a, &b, &c, &d, &e}, {&b, &d, &untimed}, 2, time, backend),
            (std::vector<Choice*>{&b, &c, &e, &d}));
  // Own configs filling the fastest few cannot keep lib's fastest out.
  EXPECT_EQ(final_round_members<Choice>({&a, &b, &c, &e}, {}, 3, time, backend), (std::vector<Choice*>{&b, &c, &a, &e}));
  EXPECT_EQ(final_round_members<Choice>({&a, &b}, {}, 3, time, backend), (std::vector<Choice*>{&b, &a}));
}

TEST(FinalRoundMembers, FirstOfEachKeepsTheFirstItemOfEveryKeyInOrder) {
  std::string x1 = "onednn", y1 = "cpu", x2 = "onednn", z1 = "libxsmm", y2 = "cpu";
  auto key = [](const std::string* s) { return *s; };
  EXPECT_EQ(first_of_each<std::string>({&x1, &y1, &x2, &z1, &y2}, key), (std::vector<std::string*>{&x1, &y1, &z1}));
  EXPECT_TRUE(first_of_each<std::string>({}, key).empty());
}

TEST(Autotuner, EveryBackendsFirstConfigTimedInFullIsAFinalist) {
  // Four backends of four equal configs and a final round of two: whichever two the full
  // timing ranks fastest, each backend's first config (a library's own pick) is timed again
  // beside them, so a full timing that misranks it cannot leave it out.
  const Problem problem = *Problem::create(24, 24, 24, DType::f32);
  BackendList backends;
  for (const char* name : {"first", "second", "third", "fourth"}) {
    backends.push_back(std::make_unique<FaultyBackend>(name, std::vector<Fault>(4, Fault::none)));
  }
  TuneOptions options = fast_options();
  options.finalists = 2;
  options.prune_factor = 0;  // every choice timed in full
  for (int run = 0; run < 3; ++run) {
    const TuneOutcome outcome = autotune(problem, *find_device("cpu"), backends, options);
    ASSERT_GE(outcome.report.best, 0);
    int finalists = 0;
    std::string previous;
    for (const ChoiceReport& c : outcome.report.choices) {
      ASSERT_EQ(c.status, ChoiceStatus::ok);
      finalists += c.final_ratio > 0;
      if (c.backend != previous) EXPECT_GT(c.final_ratio, 0) << c.backend << " " << c.config.to_string();
      previous = c.backend;
    }
    // The two fastest, then each backend's fastest and lead not among them: 4 to 9. At least
    // the two fastest and the fastest of the two or three other backends (the leads may be
    // those); at most, when the two fastest are one backend's and no lead is a fastest, the
    // two, the three other backends' fastest and all four leads.
    EXPECT_GE(finalists, 4);
    EXPECT_LE(finalists, 9);
    EXPECT_GT(outcome.report.best_choice()->final_ratio, 0);
  }
}

TEST(PickByRounds, TheFastestReadsOneAndTheOthersTheirMedianRatio) {
  const std::vector<double> ratios = ratios_to_fastest({{12.0, 11.0, 13.0}, {10.0, 10.0, 10.0}, {20.0, 20.0, 30.0}});
  ASSERT_EQ(ratios.size(), 3u);
  EXPECT_DOUBLE_EQ(ratios[0], 1.2);
  EXPECT_DOUBLE_EQ(ratios[1], 1.0);
  EXPECT_DOUBLE_EQ(ratios[2], 2.0);
}

TEST(PickByRounds, TheFastestIsTheOneNoOtherBeatsRoundByRound) {
  // Finalist 0 has the lower median (10 against 11), but finalist 1 is the faster in three
  // rounds of five: against 0 it reads 0.96, so it is the fastest and 0 reads 1.04 against it.
  const std::vector<std::vector<double>> rounds = {{10.0, 13.0, 13.0, 9.0, 9.0}, {9.5, 12.5, 12.5, 11.0, 11.0}};
  const std::vector<double> ratios = ratios_to_fastest(rounds);
  ASSERT_EQ(ratios.size(), 2u);
  EXPECT_NEAR(ratios[0], 1.04, 1e-12);
  EXPECT_DOUBLE_EQ(ratios[1], 1.0);
  EXPECT_EQ(pick_by_rounds(rounds, 0.01), 1);
  EXPECT_EQ(pick_by_rounds(rounds, 0.05), 0);  // within a 5 % band, the earlier one
  EXPECT_EQ(fastest_by_rounds(rounds), 1u);
  EXPECT_EQ(fastest_by_rounds({}), 0u);
}

RC_GTEST_PROP(PickByRounds, RatiosAreOneForTheFastestAndTheFastestIsNotBeaten, ()) {
  // Whatever the rounds, one finalist reads 1; unless the search went round a cycle of
  // finalists each faster than the last (round-by-round medians are not transitive), none
  // reads below 1.
  const int count = *rc::gen::inRange(1, 6);
  const int samples = *rc::gen::inRange(1, 10);
  std::vector<std::vector<double>> rounds;
  for (int i = 0; i < count; ++i) {
    const auto time = rc::gen::map(rc::gen::inRange(1, 1000), [](int x) { return double(x); });
    rounds.push_back(*rc::gen::container<std::vector<double>>(std::size_t(samples), time));
  }
  const std::vector<double> ratios = ratios_to_fastest(rounds);
  RC_ASSERT(ratios.size() == rounds.size());
  RC_ASSERT(std::count(ratios.begin(), ratios.end(), 1.0) >= 1);
  const int pick = pick_by_rounds(rounds, 0.01);
  RC_ASSERT(pick >= 0 && pick < count);
  RC_ASSERT(ratios[std::size_t(pick)] <= 1.01);
  if (count == 2) RC_ASSERT(*std::min_element(ratios.begin(), ratios.end()) >= 1.0 - 1e-12);
}

TEST(CloseFinish, OnlyRoundsThatLeaveThePickOpenAreTimedAgain) {
  const std::vector<double> fastest(7, 10.0);
  // 3 % slower in every round: outside the 1 % band whatever more rounds say.
  EXPECT_TRUE(close_finish_members({fastest, std::vector<double>(7, 10.3)}, 0.01, 0.03).empty());
  // 0.5 % slower in every round: a tie whatever more rounds say.
  EXPECT_TRUE(close_finish_members({fastest, std::vector<double>(7, 10.05)}, 0.01, 0.03).empty());
  // 0 to 1.5 % slower: the band's edge lies among the rounds, so both are timed again; a
  // finalist 20 % slower is not.
  const std::vector<double> open = {10.0, 10.05, 10.08, 10.09, 10.11, 10.12, 10.15};
  EXPECT_EQ(close_finish_members({open, std::vector<double>(7, 12.0), fastest}, 0.01, 0.03),
            (std::vector<std::size_t>{0, 2}));
  // Beyond the close band nothing is timed again, however open.
  EXPECT_TRUE(close_finish_members({fastest, open}, 0.0, 0.001).empty());
  // Two rounds of seven at par leave it open; five of 21, which fall outside the 90 % interval
  // of the median (the 7th to the 15th of 21), do not.
  std::vector<double> seven(5, 10.2), twenty_one(16, 10.2);
  seven.insert(seven.end(), 2, 10.0);
  twenty_one.insert(twenty_one.end(), 5, 10.0);
  EXPECT_EQ(close_finish_members({fastest, seven}, 0.01, 0.03).size(), 2u);
  EXPECT_TRUE(close_finish_members({std::vector<double>(21, 10.0), twenty_one}, 0.01, 0.03).empty());
  // One finalist: nothing to finish.
  EXPECT_TRUE(close_finish_members({open}, 0.01, 0.03).empty());
}

TEST(Autotuner, CloseFinalistsAreTimedAgainAmongThemselves) {
  // Four configs of one speed, a close band wide enough for all: the finalists the close
  // finish times again (none, or two and more) carry the final round's rounds and
  // close_repeats times as many again, the others the round's alone; without a close band,
  // all the round's alone.
  const Problem problem = *Problem::create(24, 24, 24, DType::f32);
  BackendList backends;
  backends.push_back(std::make_unique<FaultyBackend>("same", std::vector<Fault>(4, Fault::none)));
  TuneOptions options = fast_options();
  options.timing.samples = 7;
  options.finalists = 4;
  options.prune_factor = 0;
  options.close_repeats = 3;
  for (double close_band : {0.0, 10.0}) {
    options.close_band = close_band;
    const TuneOutcome outcome = autotune(problem, *find_device("cpu"), backends, options);
    ASSERT_GE(outcome.report.best, 0);
    const int round = options.timing.samples, finished = round * (1 + options.close_repeats);
    int timed_again = 0;
    for (const ChoiceReport& c : outcome.report.choices) {
      ASSERT_EQ(c.status, ChoiceStatus::ok);
      if (close_band == 0) EXPECT_EQ(c.final_rounds, round) << c.config.to_string();
      EXPECT_TRUE(c.final_rounds == round || c.final_rounds == finished) << c.final_rounds;
      timed_again += c.final_rounds == finished;
    }
    EXPECT_NE(timed_again, 1);
    EXPECT_LE(outcome.report.best_choice()->final_ratio, 1 + options.noise_band);
    EXPECT_NE(outcome.report.table().find("final round"), std::string::npos);
  }
}

TEST(PickBest, FailedAndPrunedChoicesAreNeverPicked) {
  ChoiceReport wrong = timed(1);
  wrong.status = ChoiceStatus::wrong_result;
  ChoiceReport pruned = timed(2);
  pruned.status = ChoiceStatus::pruned;
  EXPECT_EQ(pick_best({wrong, pruned, timed(9)}, 0.02), 2);
  EXPECT_EQ(pick_best({wrong}, 0.02), -1);
}

TEST(Timing, InterleavedTimingReportsErrorsPerCandidate) {
  int calls = 0;
  std::vector<std::function<Status()>> fns = {
      [&] { ++calls; return Status::ok(); },
      [] { return Status(ErrorCode::internal, "boom"); },
  };
  TimingOptions options;
  options.samples = 3;
  options.min_sample_ms = 0.01;
  auto results = time_interleaved(fns, options);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_TRUE(results[0].is_ok());
  EXPECT_GE(results[0]->samples, 2);  // outliers beyond 3 scaled MADs may be dropped
  EXPECT_LE(results[0]->samples, 3);
  EXPECT_GT(calls, 3);
  EXPECT_FALSE(results[1].is_ok());
  EXPECT_EQ(results[1].status().message(), "boom");
}

// Busy for `us` microseconds (sleeping would let the VM's scheduler stretch it).
void spin_for_us(double us) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double, std::micro>(us);
  while (std::chrono::steady_clock::now() < end) {
  }
}

// The calls that size the samples (after the warm-up) give a second reading: a candidate that
// stalls in its sample keeps the calibration's time for the prune (short_sample_us).
TEST(Timing, TheCalibrationRunIsASecondReadingForTheShortSample) {
  TimingOptions options;
  options.samples = 1;
  options.warmup_runs = 1;
  options.min_sample_ms = 0.2;  // one 100 µs call fills a quarter of it: one calibration call
  // The calls spin on the wall clock, so a thread taken off its core mid-call reads long: under
  // ctest -j2 on two cores a calibration call once read over 500 µs. Up to three attempts.
  TimingStats stats;
  for (int attempt = 0; attempt < 3; ++attempt) {
    int calls = 0;
    // Fast for the warm-up and the calibration call, ten times slower from then on.
    std::vector<std::function<Status()>> fns = {[&] {
      spin_for_us(++calls <= 2 ? 100 : 1000);
      return Status::ok();
    }};
    auto results = time_interleaved(fns, options);
    ASSERT_TRUE(results[0].is_ok()) << results[0].status().message();
    stats = *results[0];
    if (stats.calibration_us < 500) break;
  }
  EXPECT_GT(stats.calibration_us, 90);
  EXPECT_LT(stats.calibration_us, 500);
  EXPECT_GT(stats.median_us, 900);
  EXPECT_EQ(short_sample_us(stats), stats.calibration_us);
  // Where the sample is the lower reading, or there is no calibration, it is the sample.
  TimingStats plain = stats;
  plain.calibration_us = 2 * stats.median_us;
  EXPECT_EQ(short_sample_us(plain), stats.median_us);
  plain.calibration_us = -1;
  EXPECT_EQ(short_sample_us(plain), stats.median_us);
}

// One slow call in the batch that sizes the samples does not make every sample short: the
// batch is timed twice and the faster reading counts.
TEST(Timing, OneSlowCallInTheCalibrationDoesNotShortenTheSamples) {
  int calls = 0;
  // The warm-up call and every call after the first calibration batch take 100 µs; the first
  // calibration batch (one call) stalls for 1000.
  std::vector<std::function<Status()>> fns = {[&] {
    spin_for_us(++calls == 2 ? 1000 : 100);
    return Status::ok();
  }};
  TimingOptions options;
  options.samples = 3;
  options.warmup_runs = 1;
  options.min_sample_ms = 0.4;  // one call fills a quarter: four calls a sample
  auto results = time_interleaved(fns, options);
  ASSERT_TRUE(results[0].is_ok()) << results[0].status().message();
  EXPECT_LT(results[0]->calibration_us, 500);
  EXPECT_GE(results[0]->calls_per_sample, 2);  // 1000 µs would have given one call a sample
  EXPECT_LT(results[0]->median_us, 500);
}

// Any `period` rounds in a row (count of them, twice as many for an odd count) time every
// candidate once a round, each at each position equally often and right after each other
// candidate equally often: what one candidate leaves behind falls on all the others alike.
RC_GTEST_PROP(Timing, InterleavedRoundsAreBalanced, ()) {
  const auto count = *rc::gen::inRange<std::size_t>(1, 16);
  const int period = int(count % 2 == 0 ? count : 2 * count);
  const int start = *rc::gen::inRange(0, 100000);
  std::map<std::pair<std::size_t, std::size_t>, int> at, follows;
  std::vector<std::size_t> everyone(count);
  std::iota(everyone.begin(), everyone.end(), std::size_t{0});
  for (int r = start; r < start + period; ++r) {
    std::vector<std::size_t> round;
    for (std::size_t p = 0; p < count; ++p) round.push_back(interleaved_candidate(r, p, count));
    for (std::size_t p = 0; p < count; ++p) {
      ++at[{p, round[p]}];
      if (p > 0) ++follows[{round[p - 1], round[p]}];
    }
    std::sort(round.begin(), round.end());
    RC_ASSERT(round == everyone);
  }
  const int times = period / int(count);
  RC_ASSERT(at.size() == count * count);
  for (const auto& [where, n] : at) RC_ASSERT(n == times);
  RC_ASSERT(follows.size() == count * (count - 1));
  for (const auto& [pair, n] : follows) RC_ASSERT(n == times);
}

TEST(Timing, AProcessOfOneIdleThreadIsQuiet) { EXPECT_TRUE(wait_until_process_quiet(1000)); }

TEST(Timing, AThreadThatNeverStopsSpinningIsWaitedForOnlyUntilTheLimit) {
  std::atomic<bool> stop{false};
  std::thread spinner([&] {
    while (!stop.load(std::memory_order_relaxed)) {
    }
  });
  const auto start = std::chrono::steady_clock::now();
  const bool quiet = wait_until_process_quiet(20);
  const double waited_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  stop = true;
  spinner.join();
  EXPECT_FALSE(quiet);           // a spinning thread is always running or waiting for a core
  EXPECT_LT(waited_ms, 1000.0);  // bounded by the limit, whatever the spinner does
}

}  // namespace
}  // namespace gemmtune
