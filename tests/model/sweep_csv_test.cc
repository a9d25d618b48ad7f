// Sweep files: rows read back as written, an interrupted shape is dropped, anything malformed
// is refused with its line; and the tuning-time simulation that the evaluation relies on.
#include <gtest/gtest.h>

#include <fstream>

#include "gemmtune/cost_model.h"
#include "gemmtune/sweep.h"

namespace gemmtune {
namespace {

SweepMeta sample_meta() {
  SweepMeta meta;
  meta.device = "cpu|Test|avx2,|2t|l2=1024K";
  meta.device_class = "cpu/avx2/2t";
  meta.backend_versions = {{"cpu", "abc"}, {"openblas", "OpenBLAS 0.3, with spaces"}};
  meta.search = "exhaustive";
  meta.timing.samples = 3;
  meta.timing.min_sample_ms = 1;
  meta.workers = 2;
  meta.finalists = 2;  // not the defaults, so that reading them back is tested
  meta.close_band = 0.05;
  meta.close_repeats = 3;
  return meta;
}

ConfigMeasurement measured(const std::string& backend, int rank, ChoiceStatus status, double time_us) {
  ConfigMeasurement m;
  m.backend = backend;
  m.config.rank = rank;
  m.status = status;
  m.time_us = time_us;
  m.quick_us = time_us;
  m.full = status == ChoiceStatus::ok;
  m.prepare_us = 10;
  m.verify_us = 20;
  m.quick_cost_us = 100;
  m.full_cost_us = status == ChoiceStatus::ok ? 1000 : 0;
  if (status != ChoiceStatus::ok) m.reason = "cannot, because: a, b\nand c";
  return m;
}

ShapeMeasurement sample_shape() {
  ShapeMeasurement shape;
  shape.setup_us = 500;
  shape.configs = {measured("cpu", 1, ChoiceStatus::ok, 5.5), measured("cpu", 2, ChoiceStatus::skipped, -1),
                   measured("openblas", 0, ChoiceStatus::ok, 7.25)};
  return shape;
}

ProblemKey key(int m) { return ProblemKey::of(*Problem::create(m, 16, 32, DType::f32, "nt")); }

std::string sample_file() {
  return sweep_csv_header(sample_meta()) + sweep_csv_rows(key(4), sample_shape()) + sweep_csv_rows(key(9), sample_shape());
}

TEST(SweepCsv, RowsReadBackAsWritten) {
  auto data = parse_sweep_csv(sample_file(), "s.csv");
  ASSERT_TRUE(data.is_ok()) << data.status().message();
  EXPECT_EQ(data->meta, sample_meta());
  ASSERT_EQ(data->rows.size(), 6u);
  ASSERT_EQ(data->shapes.size(), 2u);
  EXPECT_EQ(data->shapes[1], key(9).to_string());
  const SweepRow& row = data->rows[2];
  EXPECT_EQ(row.problem, key(4));
  EXPECT_EQ(row.measured.backend, "openblas");
  EXPECT_EQ(row.measured.status, ChoiceStatus::ok);
  EXPECT_DOUBLE_EQ(row.measured.time_us, 7.25);
  EXPECT_TRUE(row.measured.full);
  EXPECT_DOUBLE_EQ(row.setup_us, 500);
  EXPECT_EQ(data->rows[1].measured.status, ChoiceStatus::skipped);
  EXPECT_EQ(data->rows[1].measured.reason, "cannot; because: a; b and c") << "commas and breaks cannot split a row";
  EXPECT_EQ(data->complete_bytes, sample_file().size());
}

TEST(SweepCsv, AShapeCutOffByAnInterruptionIsLeftOut) {
  const std::string whole = sweep_csv_header(sample_meta()) + sweep_csv_rows(key(4), sample_shape());
  const std::string next = sweep_csv_rows(key(9), sample_shape());
  // Cut anywhere in the second shape, its "# done" line included: only the first shape counts.
  for (std::size_t cut = 0; cut < next.size(); cut += 7) {
    auto data = parse_sweep_csv(whole + next.substr(0, cut), "s.csv");
    ASSERT_TRUE(data.is_ok()) << "cut at " << cut << ": " << data.status().message();
    EXPECT_EQ(data->rows.size(), 3u) << "cut at " << cut;
    EXPECT_EQ(data->shapes.size(), 1u);
    EXPECT_EQ(data->complete_bytes, whole.size());
  }
}

TEST(SweepCsv, MalformedFilesAreRefusedWithTheirLine) {
  const std::string good = sample_file();
  struct Case {
    std::string text;
    std::string words;
    int line;
  };
  std::string wrong_fields = good;
  wrong_fields.replace(wrong_fields.find(",ok,"), 4, ",ok,,");
  std::string bad_number = good;
  bad_number.replace(bad_number.find("5.5"), 3, "fast");
  std::string bad_done = good;
  bad_done.replace(bad_done.find("# done ") + 7, 3, "f16");
  SweepMeta negative_close = sample_meta();
  negative_close.close_band = -0.5;
  std::string mixed = good;
  mixed.erase(mixed.find("# done "), mixed.find('\n', mixed.find("# done ")) - mixed.find("# done ") + 1);
  const std::vector<Case> cases = {
      {"", "no header", 1},
      {"m,n,k\n", "not a sweep file", 1},
      {"# gemmtune-sweep 1\n# meta: {\"device\": 1}\n", "meta data", 2},
      {sweep_csv_header(negative_close), "meta data out of range", 2},
      {wrong_fields, "expected 17 fields", 4},
      {bad_number, "'time_us' is 'fast'", 4},
      {bad_done, "does not close the rows above it", 7},
      {mixed, "no '# done' between them", 7},
  };
  for (const Case& c : cases) {
    auto data = parse_sweep_csv(c.text, "s.csv");
    ASSERT_FALSE(data.is_ok()) << c.words;
    EXPECT_EQ(data.status().code(), ErrorCode::corrupt_data);
    EXPECT_NE(data.status().message().find(c.words), std::string::npos) << data.status().message();
    EXPECT_NE(data.status().message().find("s.csv:" + std::to_string(c.line) + ":"), std::string::npos)
        << data.status().message();
  }
}

TEST(SweepCsv, MetaIntegerThatIsAFloatOrTooLargeIsRefusedNamingIt) {
  // get<int>() of 1e300 was an undefined conversion (UBSan in sweep_csv_fuzz); 2^40 was truncated.
  for (const char* value : {"1e300", "1099511627776", "2.5"}) {
    std::string text = sweep_csv_header(sample_meta());
    const std::size_t at = text.find("\"samples\":3");
    ASSERT_NE(at, std::string::npos) << text;
    text.replace(at, std::string("\"samples\":3").size(), std::string("\"samples\":") + value);
    auto data = parse_sweep_csv(text, "s.csv");
    ASSERT_FALSE(data.is_ok()) << value;
    EXPECT_NE(data.status().message().find("s.csv:2: meta data 'samples'"), std::string::npos) << data.status().message();
  }
}

TEST(SweepCsv, SweepsOfDifferentSettingsDoNotMerge) {
  const std::string dir = ::testing::TempDir();
  SweepMeta other = sample_meta();
  other.timing.samples = 7;
  {
    std::ofstream(dir + "/a.csv") << sample_file();
    std::ofstream(dir + "/b.csv") << sweep_csv_header(other) + sweep_csv_rows(key(30), sample_shape());
    std::ofstream(dir + "/c.csv") << sweep_csv_header(sample_meta()) + sweep_csv_rows(key(30), sample_shape());
  }
  auto merged = read_sweep_csvs({dir + "/a.csv", dir + "/c.csv"});
  ASSERT_TRUE(merged.is_ok()) << merged.status().message();
  EXPECT_EQ(merged->shapes.size(), 3u);
  EXPECT_EQ(merged->rows.size(), 9u);
  auto refused = read_sweep_csvs({dir + "/a.csv", dir + "/b.csv"});
  ASSERT_FALSE(refused.is_ok());
  EXPECT_NE(refused.status().message().find("b.csv"), std::string::npos);
  EXPECT_FALSE(read_sweep_csvs({dir + "/a.csv", dir + "/a.csv"}).is_ok()) << "the same shapes twice";
}

TEST(SimulatedTuning, FollowsTheAutotunersSteps) {
  SweepMeta meta = sample_meta();
  meta.workers = 2;
  meta.prune_factor = 1.5;
  meta.finalists = 3;
  ConfigMeasurement fast = measured("cpu", 1, ChoiceStatus::ok, 10);
  ConfigMeasurement close = measured("cpu", 2, ChoiceStatus::ok, 14);   // within 1.5x: timed in full
  ConfigMeasurement slow = measured("cpu", 3, ChoiceStatus::ok, 40);    // pruned after its short sample
  ConfigMeasurement wrong = measured("cpu", 4, ChoiceStatus::wrong_result, -1);
  fast.prepare_us = 30;
  close.prepare_us = 10;
  slow.prepare_us = 10;
  wrong.prepare_us = 10;
  // Preparing on two threads in order: [30] and [10, 10, 10] -> 30. Verifying: 4 x 20.
  // Short samples of the three ok: 3 x 100. Full timings of fast and close: 2 x 1000, and
  // once more in the final round of the three fastest timed in full (two here).
  const double all = simulated_tuning_us(meta, 500, {&fast, &close, &slow, &wrong});
  EXPECT_DOUBLE_EQ(all, 500 + 30 + 80 + 300 + 2000 + 2000);
  meta.finalists = 0;
  EXPECT_DOUBLE_EQ(simulated_tuning_us(meta, 500, {&fast, &close, &slow, &wrong}), 500 + 30 + 80 + 300 + 2000);
  // Each backend's lead, timed in full, joins the two fastest in the final round: cpu's lead
  // (fast, 10) is one of them; onednn's (13) joins it and onednn's second config (12); close
  // (14) does not, nor openblas's lead (16), pruned after its short sample (over 1.5 x 10).
  meta.finalists = 2;
  ConfigMeasurement lead = measured("onednn", 1, ChoiceStatus::ok, 13);
  ConfigMeasurement second = measured("onednn", 2, ChoiceStatus::ok, 12);
  ConfigMeasurement pruned_lead = measured("openblas", 1, ChoiceStatus::ok, 16);
  lead.prepare_us = second.prepare_us = pruned_lead.prepare_us = 0;
  lead.verify_us = second.verify_us = pruned_lead.verify_us = 0;
  // Preparing 30, verifying 2 x 20, short samples 5 x 100, full timings 4 x 1000, final round
  // 3 x 1000.
  EXPECT_DOUBLE_EQ(simulated_tuning_us(meta, 0, {&fast, &close, &lead, &second, &pruned_lead}),
                   30 + 2 * 20 + 500 + 4 * 1000 + 3 * 1000);
  meta.finalists = 3;
  // One choice: no short sample, its full timing only.
  EXPECT_DOUBLE_EQ(simulated_tuning_us(meta, 500, {&close}), 500 + 10 + 20 + 1000);
  // Not timed in full by the sweep: its short sample's cost x (warm-ups 2 + 1 + samples 3) / 3.
  slow.full = false;
  meta.prune_factor = 0;  // everything timed in full
  EXPECT_DOUBLE_EQ(simulated_tuning_us(meta, 0, {&slow}), 10 + 20 + 100 * 6.0 / 3.0);
}

}  // namespace
}  // namespace gemmtune
