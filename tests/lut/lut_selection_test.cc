// The lookup table in tuning: its configs join the choices, or are the only ones, or are used
// without tuning; a config that cannot run, or a table that does not load, never stops a tuning.
#include <gtest/gtest.h>

#include <fstream>
#include <set>

#include "tuning/autotuner.h"
#include "core/reference_gemm.h"
#include "gemmtune/lut.h"
#include "gemmtune/session.h"

namespace gemmtune {
namespace {

class ReferenceKernel final : public Kernel {
 public:
  explicit ReferenceKernel(const Problem& p) : p_(p) {}
  Status run(const GemmArgs& args) override {
    reference_gemm(p_, args.a, args.b, args.c);
    return Status::ok();
  }

 private:
  Problem p_;
};

// Configs rank=1..4 in the default space, 1..8 in the exhaustive one; it can run 1..16.
class NumberedBackend final : public Backend {
 public:
  explicit NumberedBackend(std::string name) : name_(std::move(name)) {}
  std::string_view name() const override { return name_; }
  std::string version() const override { return "1"; }
  std::vector<KernelConfig> configs(const Problem&, SearchSpace space) const override {
    std::vector<KernelConfig> configs;
    for (int rank = 1; rank <= (space == SearchSpace::exhaustive ? 8 : 4); ++rank) configs.push_back(numbered(rank));
    return configs;
  }
  Status can_implement(const Problem&, const KernelConfig& c) const override {
    return c.rank >= 1 && c.rank <= 16 ? Status::ok() : unsupported("rank " + std::to_string(c.rank) + " does not exist");
  }
  Result<std::unique_ptr<Kernel>> prepare(const Problem& p, const KernelConfig&) const override {
    return std::unique_ptr<Kernel>(std::make_unique<ReferenceKernel>(p));
  }
  static KernelConfig numbered(int rank) {
    KernelConfig c;
    c.rank = rank;
    return c;
  }

 private:
  std::string name_;
};

// A JIT family's way: the first prepare of a config compiles it, later ones load it from its
// cache (a bundle's cubins).
class CompilingBackend final : public Backend {
 public:
  std::string_view name() const override { return "jit"; }
  std::string version() const override { return "1"; }
  std::vector<KernelConfig> configs(const Problem&, SearchSpace) const override { return {NumberedBackend::numbered(1)}; }
  Status can_implement(const Problem&, const KernelConfig&) const override { return Status::ok(); }
  Result<std::unique_ptr<Kernel>> prepare(const Problem& p, const KernelConfig& c) const override {
    if (cached_.insert(c.rank).second) ++compiled_;
    return std::unique_ptr<Kernel>(std::make_unique<ReferenceKernel>(p));
  }
  std::int64_t compilations() const override { return compiled_; }

 private:
  mutable std::set<int> cached_;
  mutable std::int64_t compiled_ = 0;
};

struct Fixture {
  Problem problem = *Problem::create(8, 8, 8, DType::f32);
  DeviceInfo device = *find_device("cpu");
  BackendList backends;
  TuneOptions options;

  Fixture() {
    backends.push_back(std::make_unique<NumberedBackend>("alpha"));
    backends.push_back(std::make_unique<NumberedBackend>("beta"));
    options.timing.samples = 1;
    options.timing.min_sample_ms = 0.01;
    options.timing.warmup_runs = 0;
    options.seed = 3;
  }

  void table(LutMode mode, std::vector<LutChoice> configs, bool by_class = false) {
    LookupTable lut;
    LutEntry entry;
    (by_class ? entry.device_class : entry.device) = by_class ? device.device_class() : device.fingerprint();
    entry.problem = ProblemKey::of(problem).to_string();
    entry.mode = mode;
    entry.configs = std::move(configs);
    lut.entries.push_back(entry);
    options.lut = std::make_shared<const LookupTable>(lut);
  }

  bool has_choice(const TuneReport& report, const std::string& backend, int rank) const {
    for (const ChoiceReport& c : report.choices) {
      if (c.backend == backend && c.config.rank == rank) return true;
    }
    return false;
  }
};

TEST(LutSelection, IncludedConfigsJoinTheChoicesOfTheSearchSpace) {
  Fixture f;
  f.table(LutMode::include, {{"beta", NumberedBackend::numbered(12), -1}});
  TuneOutcome out = autotune(f.problem, f.device, f.backends, f.options);
  EXPECT_EQ(out.report.choices.size(), 9u) << "4 + 4 of the default space and the table's";
  EXPECT_TRUE(f.has_choice(out.report, "beta", 12));
  EXPECT_NE(out.report.selection.find("lookup table: 1 configs added"), std::string::npos) << out.report.selection;
  EXPECT_FALSE(out.from_lookup_table);
  EXPECT_NE(out.kernel, nullptr);
}

TEST(LutSelection, ATableNamingTheDeviceClassMatchesToo) {
  Fixture f;
  f.table(LutMode::include, {{"alpha", NumberedBackend::numbered(9), -1}}, /*by_class=*/true);
  TuneOutcome out = autotune(f.problem, f.device, f.backends, f.options);
  EXPECT_TRUE(f.has_choice(out.report, "alpha", 9));
}

TEST(LutSelection, OnlyModeMakesTheTablesConfigsTheOnlyChoices) {
  Fixture f;
  f.table(LutMode::only, {{"alpha", NumberedBackend::numbered(3), -1}, {"beta", NumberedBackend::numbered(11), -1}});
  TuneOutcome out = autotune(f.problem, f.device, f.backends, f.options);
  ASSERT_EQ(out.report.choices.size(), 2u);
  EXPECT_TRUE(f.has_choice(out.report, "alpha", 3));
  EXPECT_TRUE(f.has_choice(out.report, "beta", 11));
  EXPECT_GE(out.report.best, 0);
}

TEST(LutSelection, UseModeRunsTheFirstUsableConfigWithoutTuning) {
  Fixture f;
  f.table(LutMode::use, {{"gamma", NumberedBackend::numbered(1), -1}, {"beta", NumberedBackend::numbered(6), -1}});
  TuneOutcome out = autotune(f.problem, f.device, f.backends, f.options);
  ASSERT_EQ(out.report.choices.size(), 1u);
  EXPECT_EQ(out.report.choices[0].backend, "beta");
  EXPECT_EQ(out.report.choices[0].config.rank, 6);
  EXPECT_LT(out.report.choices[0].time_us, 0) << "not timed";
  EXPECT_EQ(out.report.best, 0);
  EXPECT_TRUE(out.from_lookup_table);
  EXPECT_NE(out.report.selection.find("used without tuning"), std::string::npos) << out.report.selection;
  EXPECT_NE(out.report.selection.find("gamma"), std::string::npos) << "the unusable config is named";
  ASSERT_NE(out.kernel, nullptr);
}

// A config used without tuning reports what it cost to compile: the first time, and nothing
// once its kernel is in the cache (how a bundle is seen to serve a deployed program).
TEST(LutSelection, UseModeCountsTheCompilationsTheConfigCost) {
  Fixture f;
  f.backends.push_back(std::make_unique<CompilingBackend>());
  f.table(LutMode::use, {{"jit", NumberedBackend::numbered(5), -1}});
  TuneOutcome first = autotune(f.problem, f.device, f.backends, f.options);
  TuneOutcome again = autotune(f.problem, f.device, f.backends, f.options);
  ASSERT_TRUE(first.from_lookup_table);
  ASSERT_TRUE(again.from_lookup_table);
  EXPECT_EQ(first.report.compilations, 1);
  EXPECT_EQ(again.report.compilations, 0);
}

TEST(LutSelection, ConfigsThatCannotRunAreLeftOutAndTuningGoesOn) {
  Fixture f;
  f.table(LutMode::use, {{"alpha", NumberedBackend::numbered(99), -1}});
  TuneOutcome out = autotune(f.problem, f.device, f.backends, f.options);
  EXPECT_EQ(out.report.choices.size(), 8u) << "the default space, as without a table";
  EXPECT_FALSE(out.from_lookup_table);
  EXPECT_NE(out.report.selection.find("rank 99 does not exist"), std::string::npos) << out.report.selection;
  EXPECT_NE(out.report.selection.find("none usable"), std::string::npos) << out.report.selection;
  EXPECT_GE(out.report.best, 0);
}

TEST(LutSelection, BackendsLeftOutByTheOptionsAreLeftOutOfTheTableToo) {
  Fixture f;
  f.options.backends = {"alpha"};
  f.table(LutMode::include, {{"beta", NumberedBackend::numbered(12), -1}});
  TuneOutcome out = autotune(f.problem, f.device, f.backends, f.options);
  EXPECT_FALSE(f.has_choice(out.report, "beta", 12));
  EXPECT_NE(out.report.selection.find("backend not wanted"), std::string::npos) << out.report.selection;
}

TEST(LutSelection, ASessionWithAMalformedTableReportsItAndTunesOn) {
  const std::string path = ::testing::TempDir() + "/malformed-lut.json";
  std::ofstream(path) << "{\"format\": \"gemmtune-lut\", \"version\": 1, \"entries\": [{\"problem\": 7}]}";
  SessionOptions options;
  options.store.mode = StoreMode::off;
  options.lut_path = path;
  options.tuning.timing.samples = 1;
  options.tuning.timing.min_sample_ms = 0.01;
  ::testing::internal::CaptureStderr();
  auto session = Session::create(options);
  const std::string warning = ::testing::internal::GetCapturedStderr();
  ASSERT_TRUE(session.is_ok()) << session.status().message();
  EXPECT_NE(warning.find("lookup table not used"), std::string::npos) << warning;
  EXPECT_NE(warning.find("line 1"), std::string::npos) << warning;
  EXPECT_EQ((*session)->options().tuning.lut, nullptr);
  auto report = (*session)->tune(*Problem::create(16, 16, 16, DType::f32));
  ASSERT_TRUE(report.is_ok()) << report.status().message();
  EXPECT_GE(report->best, 0);
}

}  // namespace
}  // namespace gemmtune
