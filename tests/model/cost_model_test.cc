// The cost model on synthetic sweeps whose best config is known: it must learn to rank, survive
// a save and a load, refuse damaged files and models of other devices or kernels, and narrow a
// tuning to its top k.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>

#include "ci_skip.h"
#include "tuning/autotuner.h"
#include "gemmtune/cost_model.h"
#include "model/cost_model_document.h"
#include "model/fast_top_k.h"
#include "model/zlib_codec.h"
#include "model/features.h"
#include "store/store_entry.h"
#include "store/temp_dir.h"

namespace gemmtune {
namespace {

using gemmtune::testing::TempDir;

constexpr int kRanks = 12;

// The best rank of a shape moves with m; every other rank is slower by how far it is from it.
double synthetic_time_us(const ProblemKey& key, int rank) {
  const int best = 1 + int(std::log2(double(key.m))) % kRanks;
  return 1e-3 * double(key.m) * double(key.n) * double(key.k) / 1e3 * (1.0 + 0.3 * std::abs(rank - best));
}

// `ranks` configs a shape: the fixture's 12, or a space large enough that timing a few of its
// configs is a small part of timing them all, as the CPU's hundreds are. `cost_scale` scales
// each config's measured costs: the larger, the smaller the share of the ranking (which an
// evaluation times live) in a simulated tuning.
SweepData synthetic_sweep(const std::string& device, int first_shape, int shapes, int ranks = kRanks,
                          double cost_scale = 1, DType dtype = DType::f32) {
  SweepData data;
  data.meta.device = device;
  data.meta.device_class = "cpu/avx2/2t";
  data.meta.backend_versions = {{"alpha", "1"}};
  data.meta.search = "exhaustive";
  for (int s = first_shape; s < first_shape + shapes; ++s) {
    const std::int64_t m = 1 + (s * 37) % 2000, n = 64 + (s * 53) % 512, k = 64 + (s * 71) % 512;
    const ProblemKey key = ProblemKey::of(*Problem::create(m, n, k, dtype));
    data.shapes.push_back(key.to_string());
    for (int rank = 1; rank <= ranks; ++rank) {
      SweepRow row;
      row.problem = key;
      row.setup_us = 100;
      row.measured.backend = "alpha";
      row.measured.config.rank = rank;
      row.measured.status = ChoiceStatus::ok;
      row.measured.time_us = row.measured.quick_us = synthetic_time_us(key, rank);
      row.measured.full = true;
      row.measured.prepare_us = 5 * cost_scale;
      row.measured.verify_us = 5 * cost_scale;
      row.measured.quick_cost_us = 50 * cost_scale;
      row.measured.full_cost_us = 500 * cost_scale;
      data.rows.push_back(row);
    }
  }
  return data;
}

TrainOptions small_training() {
  TrainOptions options;
  options.rounds = 80;
  options.max_depth = 5;
  options.eta = 0.3;
  options.threads = 1;
  return options;
}

// A small model of `device`, of `device_class`, saved as `path`: a model folder's file.
void save_synthetic_model(const std::string& path, const std::string& device, const std::string& device_class) {
  SweepData data = synthetic_sweep(device, 0, 30);
  data.meta.device_class = device_class;
  auto trained = CostModel::train({data}, {"s.csv"}, small_training(), false);
  ASSERT_TRUE(trained.is_ok()) << trained.status().message();
  ASSERT_TRUE((*trained)->save(path).is_ok()) << path;
}

class CostModelTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!CostModel::built_in()) SKIP_UNLESS_CI(CostModel::not_built_in_reason());
    auto trained = CostModel::train({synthetic_sweep(kDevice, 0, 60)}, {"synthetic.csv"}, small_training());
    ASSERT_TRUE(trained.is_ok()) << trained.status().message();
    model_ = *trained;
  }
  static constexpr const char* kDevice = "cpu|Synthetic|avx2,|2t|l2=1024K";
  std::shared_ptr<const CostModel> model_;
};

TEST_F(CostModelTest, RanksTheConfigsOfShapesItWasNotTrainedOn) {
  const SweepData held_out = synthetic_sweep(kDevice, 1000, 20);
  auto eval = evaluate_cost_model(*model_, held_out, 3, kRanks);
  ASSERT_TRUE(eval.is_ok()) << eval.status().message();
  EXPECT_EQ(eval->shapes.size(), 20u);
  EXPECT_GE(eval->at_k.shapes_with_best, 16) << "the top 3 hold the best config of most shapes";
  EXPECT_DOUBLE_EQ(eval->curve.back().quality_geomean, 1.0) << "with every config timed, the best is found";
  EXPECT_GT(eval->curve.back().time_fraction, eval->at_k.time_fraction);
  EXPECT_LT(eval->at_k.time_fraction, 1.0);
}

TEST_F(CostModelTest, ShapesItWasTrainedOnAreLeftOutOfTheEvaluation) {
  SweepData mixed = synthetic_sweep(kDevice, 55, 10);  // 5 trained on, 5 not
  auto eval = evaluate_cost_model(*model_, mixed, 2);
  ASSERT_TRUE(eval.is_ok()) << eval.status().message();
  EXPECT_EQ(eval->shapes_in_training, 5);
  EXPECT_EQ(eval->shapes.size(), 5u);
  auto none = evaluate_cost_model(*model_, synthetic_sweep(kDevice, 0, 10), 2);
  ASSERT_FALSE(none.is_ok());
  EXPECT_NE(none.status().message().find("no held-out shape"), std::string::npos);
}

TEST_F(CostModelTest, ASavedModelLoadsAndPredictsTheSame) {
  TempDir dir;
  const std::string path = dir.file("model.json");
  ASSERT_TRUE(model_->save(path).is_ok());
  auto loaded = CostModel::load(path);
  ASSERT_TRUE(loaded.is_ok()) << loaded.status().message();
  EXPECT_EQ((*loaded)->info().device, kDevice);
  EXPECT_EQ((*loaded)->info().training_shapes, model_->info().training_shapes);
  const Problem p = *Problem::create(300, 200, 100, DType::f32);
  std::vector<ModelChoice> choices;
  for (int rank = 1; rank <= kRanks; ++rank) choices.push_back({"alpha", *KernelConfig::parse("rank=" + std::to_string(rank))});
  EXPECT_EQ(*model_->predict(p, choices), *(*loaded)->predict(p, choices));
  EXPECT_EQ((*loaded)->info().fast_top_k, model_->info().fast_top_k);
  EXPECT_EQ((*loaded)->info().fast_fit_quality, model_->info().fast_fit_quality);
  auto info = CostModel::read_info(path);
  ASSERT_TRUE(info.is_ok());
  EXPECT_EQ(info->backends, std::vector<std::string>{"alpha"});
}

TEST_F(CostModelTest, DamagedModelFilesAreRefused) {
  TempDir dir;
  const std::string path = dir.file("model.json");
  ASSERT_TRUE(model_->save(path).is_ok());
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::string edited = text;
  edited.replace(edited.find("\"rows\":"), 7, "\"rows\": 1");
  std::ofstream(dir.file("edited.json")) << edited;
  auto refused = CostModel::load(dir.file("edited.json"));
  ASSERT_FALSE(refused.is_ok());
  EXPECT_EQ(refused.status().code(), ErrorCode::corrupt_data);
  EXPECT_NE(refused.status().message().find("checksum"), std::string::npos) << refused.status().message();
  std::ofstream(dir.file("cut.json")) << text.substr(0, text.size() / 2);
  auto cut = CostModel::load(dir.file("cut.json"));
  ASSERT_FALSE(cut.is_ok());
  EXPECT_NE(cut.status().message().find("not valid JSON"), std::string::npos);
}

// Base64 as a model file writes it (RFC 4648, padded).
std::string base64_of(const std::string& bytes) {
  static constexpr char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    const std::size_t n = std::min<std::size_t>(3, bytes.size() - i);
    std::uint32_t chunk = 0;
    for (std::size_t j = 0; j < 3; ++j) chunk = chunk << 8 | (j < n ? std::uint8_t(bytes[i + j]) : 0u);
    for (std::size_t j = 0; j < 4; ++j) out += j <= n ? digits[chunk >> (18 - 6 * j) & 63] : '=';
  }
  return out;
}

// A model is written in version 2, its trees zlib-compressed (a quarter of the size); a file of
// version 1 (trees as plain UBJSON) still loads, and `upgrade_file` rewrites it in version 2
// with the same trees and info. Damaged compressed trees and versions out of range are refused.
TEST_F(CostModelTest, ModelFilesCarryTheirTreesCompressedAndVersionOneStillReads) {
  TempDir dir;
  const std::string path = dir.file("model.json");
  ASSERT_TRUE(model_->save(path).is_ok());
  std::ifstream in(path);
  const nlohmann::json saved = nlohmann::json::parse(in);
  EXPECT_EQ(saved["version"], 2);
  EXPECT_TRUE(saved.contains("booster_ubj_zlib_base64"));
  EXPECT_FALSE(saved.contains("booster_ubj_base64"));

  // The same model as a version 1 file: the plain trees, resealed.
  auto written = parse_cost_model_document(saved.dump(), path, /*with_booster=*/true);
  ASSERT_TRUE(written.is_ok()) << written.status().message();
  nlohmann::json old = saved;
  old["version"] = 1;
  old.erase("booster_ubj_zlib_base64");
  old["booster_ubj_base64"] = base64_of(written->booster_bytes);
  old["checksum"] = "";
  old["checksum"] = json_checksum(old);
  const std::string v1 = dir.file("v1.json");
  std::ofstream(v1) << old.dump();
  auto read_v1 = parse_cost_model_document(old.dump(), v1, true);
  ASSERT_TRUE(read_v1.is_ok()) << read_v1.status().message();
  EXPECT_EQ(read_v1->version, 1);
  EXPECT_EQ(read_v1->booster_bytes, written->booster_bytes);
  EXPECT_LT(saved.dump().size() * 2, old.dump().size()) << "compressed, the trees take well under half";

  auto was = CostModel::upgrade_file(v1);
  ASSERT_TRUE(was.is_ok()) << was.status().message();
  EXPECT_EQ(*was, 1);
  std::ifstream upgraded_in(v1);
  const std::string upgraded((std::istreambuf_iterator<char>(upgraded_in)), std::istreambuf_iterator<char>());
  auto upgraded_doc = parse_cost_model_document(upgraded, v1, true);
  ASSERT_TRUE(upgraded_doc.is_ok()) << upgraded_doc.status().message();
  EXPECT_EQ(upgraded_doc->version, 2);
  EXPECT_TRUE(upgraded_doc->info == written->info);
  EXPECT_EQ(upgraded_doc->booster_bytes, written->booster_bytes);

  nlohmann::json damaged = saved;
  damaged["booster_ubj_zlib_base64"] = base64_of("not a zlib stream");
  damaged["checksum"] = "";
  damaged["checksum"] = json_checksum(damaged);
  auto refused = parse_cost_model_document(damaged.dump(), "damaged.json", true);
  ASSERT_FALSE(refused.is_ok());
  EXPECT_EQ(refused.status().code(), ErrorCode::corrupt_data);
  EXPECT_NE(refused.status().message().find("damaged or truncated"), std::string::npos) << refused.status().message();
  EXPECT_TRUE(parse_cost_model_document(damaged.dump(), "damaged.json", false).is_ok()) << "its info alone reads";

  nlohmann::json future = saved;
  future["version"] = 3;
  future["checksum"] = "";
  future["checksum"] = json_checksum(future);
  auto too_new = parse_cost_model_document(future.dump(), "future.json", false);
  ASSERT_FALSE(too_new.is_ok());
  EXPECT_NE(too_new.status().message().find("reads 1 to 2"), std::string::npos) << too_new.status().message();
  const Status missing = CostModel::upgrade_file(dir.file("missing.json")).status();
  EXPECT_FALSE(missing.is_ok());
  EXPECT_NE(missing.message().find("missing.json"), std::string::npos) << missing.message();
}

TEST(ZlibCodec, WholeStreamsRoundTripAndDamagedOnesAreRefused) {
  std::string bytes;
  for (int i = 0; i < 100000; ++i) bytes += char(i % 251 < 200 ? 'a' + i % 7 : i % 256);
  const std::string stream = zlib_compress(bytes);
  EXPECT_LT(stream.size(), bytes.size() / 2);
  auto back = zlib_decompress(stream);
  ASSERT_TRUE(back.is_ok()) << back.status().message();
  EXPECT_EQ(*back, bytes);
  EXPECT_EQ(*zlib_decompress(zlib_compress("")), "");
  int refused = 0;
  for (const std::string& bad : {stream.substr(0, stream.size() / 2), stream + "tail", std::string("\x78\x9c garbage"),
                                 std::string()}) {
    auto out = zlib_decompress(bad);
    EXPECT_FALSE(out.is_ok());
    EXPECT_EQ(out.status().code(), ErrorCode::corrupt_data);
    refused += !out.is_ok();
  }
  EXPECT_EQ(refused, 4);
}

TEST(CostModelDocument, AnIntegerFieldThatIsAFloatOrOutOfRangeIsRefusedNamingIt) {
  // get<int>() of 1e300 was an undefined conversion; a seed of -1 or 2^40 rounds read back as
  // other numbers without a word. The checksum is recomputed, as a careless writer would.
  ModelInfo info;
  info.device = "cpu|Test";
  info.problem_kinds = {"f32.f32.f32:nn"};
  const nlohmann::json good = cost_model_document(info, "trees");
  auto read = parse_cost_model_document(good.dump(), "m.json", true);
  ASSERT_TRUE(read.is_ok()) << read.status().to_string();
  EXPECT_EQ(read->info, info);
  EXPECT_EQ(read->booster_bytes, "trees");
  for (const auto& [pointer, value] : {std::pair{"/version", nlohmann::json(1e300)},
                                       std::pair{"/training/params/seed", nlohmann::json(-1)},
                                       std::pair{"/training/params/rounds", nlohmann::json(1099511627776)},
                                       std::pair{"/training/rows", nlohmann::json(2.5)}}) {
    nlohmann::json document = good;
    document[nlohmann::json::json_pointer(pointer)] = value;
    document["checksum"] = "";
    document["checksum"] = json_checksum(document);
    auto parsed = parse_cost_model_document(document.dump(), "m.json", true);
    ASSERT_FALSE(parsed.is_ok()) << pointer;
    EXPECT_EQ(parsed.status().code(), ErrorCode::corrupt_data);
    const std::string field = std::string(pointer).substr(std::string(pointer).rfind('/') + 1);
    EXPECT_NE(parsed.status().message().find("'" + field + "'"), std::string::npos) << parsed.status().message();
  }
}

// A model of a 300-config synthetic space, whose k is fitted. Its configs cost ten times the
// fixture's to time, so that the live ranking is a thousandth of a tuning's simulated time and
// a loaded machine cannot move the fit across its time cap.
std::shared_ptr<const CostModel> fitted_model() {
  auto trained = CostModel::train({synthetic_sweep("cpu|Synthetic|avx2,|2t|l2=1024K", 0, 60, 300, 10)}, {"wide.csv"},
                                  small_training());
  return trained.is_ok() ? *trained : nullptr;
}

TEST_F(CostModelTest, TheKThatFastTimesIsFittedOnHalvesOfTheTrainingShapes) {
  // A k within the time cap, with the worse half's quality and time at it recorded (the
  // quality reaches the goal or is the best within the cap, which the fit's own eval decides).
  const std::shared_ptr<const CostModel> model = fitted_model();
  ASSERT_NE(model, nullptr);
  const ModelInfo& info = model->info();
  EXPECT_GE(info.fast_top_k, 1);
  EXPECT_LE(info.fast_top_k, kFastFitMaxK);
  EXPECT_GT(info.fast_fit_quality, 0);
  EXPECT_LE(info.fast_fit_quality, 1);
  EXPECT_GT(info.fast_fit_time_fraction, 0);
  EXPECT_LE(info.fast_fit_time_fraction, kFastFitTimeCap);
  // The fit alone gives the model's k. (Its time fractions include the ranking, timed live;
  // the costly configs keep that a small part, so two fits agree.)
  auto again = fit_fast_top_k({synthetic_sweep("cpu|Synthetic|avx2,|2t|l2=1024K", 0, 60, 300, 10)}, small_training());
  ASSERT_TRUE(again.is_ok()) << again.status().message();
  EXPECT_EQ(again->k, info.fast_top_k);
  // Twelve configs a shape: timing even one costs more than a tenth of timing all twelve
  // (each shape's setup is paid either way), so no k keeps within the cap: not fitted.
  EXPECT_EQ(model_->info().fast_top_k, 0);
  // Too few shapes to halve: not fitted, and --fast times kFastTopK.
  auto few = CostModel::train({synthetic_sweep(kDevice, 0, int(kFastFitMinShapes) - 1, 300)}, {"few.csv"},
                              small_training());
  ASSERT_TRUE(few.is_ok()) << few.status().message();
  EXPECT_EQ((*few)->info().fast_top_k, 0);
  auto unfitted = CostModel::train({synthetic_sweep(kDevice, 0, 60, 300)}, {"s.csv"}, small_training(), false);
  ASSERT_TRUE(unfitted.is_ok());
  EXPECT_EQ((*unfitted)->info().fast_top_k, 0);
}

TEST(FastTopK, TheSmallestKThatReachesTheGoalOnBothHalvesWithinTheCapElseTheBestWithinIt) {
  auto curve = [](std::vector<std::pair<double, double>> points) {  // (quality, time) for k = 1, 2, ...
    std::vector<EvalPoint> out;
    for (std::size_t i = 0; i < points.size(); ++i) {
      EvalPoint p;
      p.k = int(i) + 1;
      p.quality_geomean = points[i].first;
      p.time_fraction = points[i].second;
      out.push_back(p);
    }
    return out;
  };
  // k = 3 reaches 0.97 on half a, but half b only at k = 4: 4, with the worse half's figures.
  FastTopKFit fit = choose_fast_top_k(curve({{0.90, 0.03}, {0.95, 0.04}, {0.975, 0.05}, {0.98, 0.06}, {0.99, 0.07}}),
                                      curve({{0.91, 0.02}, {0.96, 0.05}, {0.965, 0.055}, {0.972, 0.065}, {0.99, 0.08}}));
  EXPECT_EQ(fit.k, 4);
  EXPECT_DOUBLE_EQ(fit.quality, 0.972);
  EXPECT_DOUBLE_EQ(fit.time_fraction, 0.065);
  // The goal is reached only past the cap: the best quality within it (the only k within the
  // tolerance of it).
  fit = choose_fast_top_k(curve({{0.90, 0.05}, {0.94, 0.08}, {0.93, 0.09}, {0.99, 0.12}}),
                          curve({{0.92, 0.05}, {0.95, 0.07}, {0.96, 0.095}, {0.99, 0.11}}));
  EXPECT_EQ(fit.k, 2);
  EXPECT_DOUBLE_EQ(fit.quality, 0.94);
  // Qualities within the tolerance of the best count as equal: the smallest such k, so a
  // larger k at the cap's edge, a hair better, does not decide the fit by its live timing.
  const double edge = 0.95 + kFastFitQualityTolerance / 2;
  fit = choose_fast_top_k(curve({{0.90, 0.05}, {0.95, 0.08}, {edge, 0.099}, {0.99, 0.12}}),
                          curve({{0.92, 0.05}, {0.96, 0.07}, {0.97, 0.095}, {0.99, 0.11}}));
  EXPECT_EQ(fit.k, 2);
  EXPECT_DOUBLE_EQ(fit.quality, 0.95);
  // Beyond the tolerance, the better k.
  const double better = 0.95 + 2 * kFastFitQualityTolerance;
  fit = choose_fast_top_k(curve({{0.90, 0.05}, {0.95, 0.08}, {better, 0.099}, {0.99, 0.12}}),
                          curve({{0.92, 0.05}, {0.96, 0.07}, {0.97, 0.095}, {0.99, 0.11}}));
  EXPECT_EQ(fit.k, 3);
  // No k within the cap: not fitted.
  EXPECT_EQ(choose_fast_top_k(curve({{0.99, 0.2}}), curve({{0.99, 0.3}})).k, 0);
  EXPECT_EQ(choose_fast_top_k({}, {}).k, 0);
}

TEST(CostModelDocument, TheFastRecordIsOptionalAndItsKIsChecked) {
  ModelInfo info;
  info.device = "cpu|Test";
  info.problem_kinds = {"f32.f32.f32:nn"};
  info.fast_top_k = 7;
  info.fast_fit_quality = 0.975;
  info.fast_fit_time_fraction = 0.08;
  const nlohmann::json good = cost_model_document(info, "trees");
  ASSERT_TRUE(good.contains("fast"));
  auto read = parse_cost_model_document(good.dump(), "m.json", true);
  ASSERT_TRUE(read.is_ok()) << read.status().to_string();
  EXPECT_EQ(read->info, info);
  // A model of before the fit (no "fast") reads as unfitted.
  info.fast_top_k = 0;
  info.fast_fit_quality = info.fast_fit_time_fraction = 0;
  const nlohmann::json older = cost_model_document(info, "trees");
  EXPECT_FALSE(older.contains("fast"));
  auto read_older = parse_cost_model_document(older.dump(), "m.json", true);
  ASSERT_TRUE(read_older.is_ok());
  EXPECT_EQ(read_older->info.fast_top_k, 0);
  for (const nlohmann::json& k : {nlohmann::json(0), nlohmann::json(5000), nlohmann::json(2.5), nlohmann::json("7")}) {
    nlohmann::json document = good;
    document["fast"]["top_k"] = k;
    document["checksum"] = "";
    document["checksum"] = json_checksum(document);
    auto parsed = parse_cost_model_document(document.dump(), "m.json", true);
    ASSERT_FALSE(parsed.is_ok()) << k.dump();
    EXPECT_EQ(parsed.status().code(), ErrorCode::corrupt_data);
    EXPECT_NE(parsed.status().message().find("top_k"), std::string::npos) << parsed.status().message();
  }
}

TEST_F(CostModelTest, AModelIsOnlyUsedWhereItWasTrained) {
  EXPECT_TRUE(model_->check_trained_on(kDevice, {{"alpha", "1"}, {"other", "7"}}).is_ok());
  Status device = model_->check_trained_on("cpu|Elsewhere|2t", {});
  ASSERT_FALSE(device.is_ok());
  EXPECT_NE(device.message().find("cpu|Elsewhere|2t"), std::string::npos) << device.message();
  Status version = model_->check_trained_on(kDevice, {{"alpha", "2"}});
  ASSERT_FALSE(version.is_ok());
  EXPECT_NE(version.message().find("alpha version 1"), std::string::npos) << version.message();
  EXPECT_FALSE(evaluate_cost_model(*model_, synthetic_sweep("cpu|Elsewhere|2t", 1000, 2), 2).is_ok());
  // Scored across devices on purpose, to measure how it transfers.
  auto across = evaluate_cost_model(*model_, synthetic_sweep("cpu|Elsewhere|2t", 1000, 2), 2, 20, true);
  ASSERT_TRUE(across.is_ok()) << across.status().message();
  EXPECT_EQ(across->shapes.size(), 2u);
  EXPECT_TRUE(model_->applies_to(*Problem::create(8, 8, 8, DType::f32)).is_ok());
  Status kind = model_->applies_to(*Problem::create(8, 8, 8, DType::bf16, "nt"));
  ASSERT_FALSE(kind.is_ok());
  EXPECT_NE(kind.message().find("bf16.bf16.bf16:nt"), std::string::npos) << kind.message();
}

TEST_F(CostModelTest, TheShippedModelIsFoundByItsDevice) {
  TempDir dir;
  ASSERT_TRUE(model_->save(dir.file("mine.json")).is_ok());
  std::ofstream(dir.file("notes.json")) << "{\"not\": \"a model\"}";
  setenv("GEMMTUNE_MODEL_DIR", dir.path().c_str(), 1);
  auto found = find_cost_model(kDevice, {});
  auto missing = find_cost_model("cpu|Elsewhere|2t", {});
  unsetenv("GEMMTUNE_MODEL_DIR");
  ASSERT_TRUE(found.is_ok()) << found.status().message();
  EXPECT_EQ((*found)->info().device, kDevice);
  ASSERT_FALSE(missing.is_ok());
  EXPECT_EQ(missing.status().code(), ErrorCode::not_found);
  EXPECT_NE(missing.status().message().find("mine.json: trained on"), std::string::npos) << missing.status().message();
}

// The model folders' files are read once a process (a session's lookups, one per kind of
// problem, would read each again), but a file written since is read again.
TEST_F(CostModelTest, AModelFileWrittenAgainIsReadAgain) {
  TempDir dir;
  ASSERT_TRUE(model_->save(dir.file("mine.json")).is_ok());
  setenv("GEMMTUNE_MODEL_DIR", dir.path().c_str(), 1);
  auto before = find_cost_model(kDevice, {});
  auto elsewhere = CostModel::train({synthetic_sweep("cpu|Elsewhere|avx2,|2t|l2=512K", 0, 30)}, {"e.csv"}, small_training());
  ASSERT_TRUE(elsewhere.is_ok()) << elsewhere.status().message();
  ASSERT_TRUE((*elsewhere)->save(dir.file("mine.json")).is_ok());
  auto after = find_cost_model(kDevice, {});
  unsetenv("GEMMTUNE_MODEL_DIR");
  ASSERT_TRUE(before.is_ok()) << before.status().message();
  EXPECT_EQ(after.status().code(), ErrorCode::not_found) << "the file now holds another device's model";
  EXPECT_NE(after.status().message().find("trained on 'cpu|Elsewhere"), std::string::npos) << after.status().message();
}

// Where no model was trained on this device, one of another device of its class stands in, if
// gemmtune's own backends are at the versions it was trained on (else one of the nearest class).
TEST_F(CostModelTest, AModelOfAnotherDeviceOfTheClassStandsInWhereNoneWasTrainedOnThisOne) {
  TempDir dir;
  ASSERT_TRUE(model_->save(dir.file("mine.json")).is_ok());
  setenv("GEMMTUNE_MODEL_DIR", dir.path().c_str(), 1);
  const std::string elsewhere = "cpu|Elsewhere|avx2,|2t|l2=512K";
  auto same_class = find_cost_model(elsewhere, {{"alpha", "1"}}, "cpu/avx2/2t");
  auto no_class_given = find_cost_model(elsewhere, {{"alpha", "1"}});
  auto other_class = find_cost_model(elsewhere, {{"alpha", "1"}}, "cpu/avx512/2t");
  auto own_backend_changed = find_cost_model(elsewhere, {{"alpha", "2"}}, "cpu/avx2/2t");
  unsetenv("GEMMTUNE_MODEL_DIR");
  ASSERT_TRUE(same_class.is_ok()) << same_class.status().message();
  EXPECT_EQ((*same_class)->info().device, kDevice) << "it says where it was trained";
  EXPECT_EQ(no_class_given.status().code(), ErrorCode::not_found);
  ASSERT_TRUE(other_class.is_ok()) << "the nearest class's model: " << other_class.status().message();
  EXPECT_EQ((*other_class)->info().device_class, "cpu/avx2/2t");
  ASSERT_EQ(own_backend_changed.status().code(), ErrorCode::not_found);
  EXPECT_NE(own_backend_changed.status().message().find("alpha version 1"), std::string::npos)
      << own_backend_changed.status().message();
}

// Among several models of the class, one of a CPU with this one's features stands in before the
// first in file order; a CPU whose features none shares takes the first. So does the nearest
// class, where two of its models are equally near.
TEST_F(CostModelTest, AModelOfTheClassWithTheDevicesFeaturesStandsInFirst) {
  TempDir dir;
  const std::string plain = "cpu|Plain|family=25,model=1|avx2,fma,|2t|l2=512K";
  const std::string wide = "cpu|Wide|family=6,model=1|avx2,fma,avx512f,|2t|l2=512K";
  // "a-" sorts before "b-": the plain CPU's model comes first in file order.
  ASSERT_NO_FATAL_FAILURE(save_synthetic_model(dir.file("a-plain.json"), plain, "cpu/avx2/2t"));
  ASSERT_NO_FATAL_FAILURE(save_synthetic_model(dir.file("b-wide.json"), wide, "cpu/avx2/2t"));
  setenv("GEMMTUNE_MODEL_DIR", dir.path().c_str(), 1);
  const std::map<std::string, std::string> versions = {{"alpha", "1"}};
  auto like_wide = find_cost_model("cpu|Other|family=6,model=2|avx2,fma,avx512f,|2t|l2=1024K", versions, "cpu/avx2/2t");
  auto like_plain = find_cost_model("cpu|Other|family=25,model=2|avx2,fma,|2t|l2=1024K", versions, "cpu/avx2/2t");
  auto like_none = find_cost_model("cpu|Other|family=7,model=2|avx2,|2t|l2=1024K", versions, "cpu/avx2/2t");
  auto wide_nearest = find_cost_model("cpu|Other|family=6,model=2|avx2,fma,avx512f,|4t|l2=1024K", versions, "cpu/avx2/4t");
  unsetenv("GEMMTUNE_MODEL_DIR");
  int checked = 0;
  for (const auto& [found, expected] : {std::pair{&like_wide, wide}, std::pair{&like_plain, plain},
                                        std::pair{&like_none, plain}, std::pair{&wide_nearest, wide}}) {
    ASSERT_TRUE(found->is_ok()) << found->status().message();
    EXPECT_EQ((**found)->info().device, expected);
    ++checked;
  }
  EXPECT_EQ(checked, 4);
}

// Where neither the device nor its class has a model, the nearest CPU class's stands in: the
// nearest thread count first, then the nearest ISA level; never for a GPU, never one whose own
// backends changed.
TEST_F(CostModelTest, TheNearestCpuClassStandsInWhereTheClassHasNoModel) {
  TempDir dir;
  for (const char* device_class : {"cpu/avx512_bf16/16t", "cpu/avx2/2t", "cpu/avx512_bf16/2t"}) {
    std::string name = device_class;
    std::replace(name.begin(), name.end(), '/', '-');
    ASSERT_NO_FATAL_FAILURE(save_synthetic_model(dir.file(name + ".json"), std::string("cpu|Trained|") + device_class, device_class));
  }
  setenv("GEMMTUNE_MODEL_DIR", dir.path().c_str(), 1);
  const std::map<std::string, std::string> versions = {{"alpha", "1"}};
  auto four_threads = find_cost_model("cpu|New|4t", versions, "cpu/avx512_bf16/4t");
  auto avx2_many = find_cost_model("cpu|New|16t", versions, "cpu/avx2/16t");
  auto avx512_one = find_cost_model("cpu|New|1t", versions, "cpu/avx512/1t");
  auto gpu = find_cost_model("cuda|New", versions, "cuda/sm_80/108sm");
  auto changed = find_cost_model("cpu|New|4t", {{"alpha", "2"}}, "cpu/avx512_bf16/4t");
  unsetenv("GEMMTUNE_MODEL_DIR");
  ASSERT_TRUE(four_threads.is_ok()) << four_threads.status().message();
  EXPECT_EQ((*four_threads)->info().device_class, "cpu/avx512_bf16/2t") << "2 threads are nearer than 16; then the ISA";
  ASSERT_TRUE(avx2_many.is_ok()) << avx2_many.status().message();
  EXPECT_EQ((*avx2_many)->info().device_class, "cpu/avx512_bf16/16t") << "the thread count before the ISA";
  ASSERT_TRUE(avx512_one.is_ok()) << avx512_one.status().message();
  EXPECT_EQ((*avx512_one)->info().device_class, "cpu/avx2/2t") << "avx2 is one level from avx512, avx512_bf16 two";
  EXPECT_EQ(gpu.status().code(), ErrorCode::not_found);
  ASSERT_EQ(changed.status().code(), ErrorCode::not_found);
  EXPECT_NE(changed.status().message().find("alpha version 1"), std::string::npos) << changed.status().message();
}

// A sweep whose every shape also has one OpenBLAS choice, `factor` times the shape's best time.
SweepData with_openblas(SweepData data, const std::string& version, double factor) {
  data.meta.backend_versions["openblas"] = version;
  std::vector<SweepRow> peers;
  for (const SweepRow& row : data.rows) {
    if (row.measured.config.rank != 1) continue;
    SweepRow peer = row;
    peer.measured.backend = "openblas";
    peer.measured.config = KernelConfig{};
    const int best = 1 + int(std::log2(double(row.problem.m))) % kRanks;
    peer.measured.time_us = peer.measured.quick_us = factor * synthetic_time_us(row.problem, best);
    peers.push_back(peer);
  }
  data.rows.insert(data.rows.end(), peers.begin(), peers.end());
  return data;
}

// Trains a model on backend alpha at version `trained` and checks that a build at each of `kept`
// keeps it and one at each of `retired` retires it; how many versions it checked.
int check_versions_kept_and_retired(const std::string& trained, const std::vector<std::string>& kept,
                                    const std::vector<std::string>& retired) {
  const std::string device = "cpu|Synthetic|avx2,|2t|l2=1024K";
  SweepData sweep = synthetic_sweep(device, 0, 30);
  sweep.meta.backend_versions = {{"alpha", trained}};
  auto trained_model = CostModel::train({sweep}, {"s.csv"}, small_training(), false);
  EXPECT_TRUE(trained_model.is_ok()) << trained_model.status().message();
  if (!trained_model.is_ok()) return 0;
  int checked = 0;
  for (const std::string& version : kept) {
    EXPECT_TRUE((*trained_model)->check_trained_on(device, {{"alpha", version}}).is_ok()) << version;
    ++checked;
  }
  for (const std::string& version : retired) {
    EXPECT_FALSE((*trained_model)->check_trained_on(device, {{"alpha", version}}).is_ok()) << version;
    ++checked;
  }
  return checked;
}

// An own backend's version may name after its kernels the copy kernel a padded problem's
// operands go through before every config ("+pad_copy-<hash>"): another copy kernel keeps the
// model (all of a problem's configs move alike), other kernels retire it.
TEST(CostModelVersions, AnotherPadCopyKeepsTheModelAndOtherKernelsRetireIt) {
  if (!CostModel::built_in()) SKIP_UNLESS_CI(CostModel::not_built_in_reason());
  EXPECT_EQ(check_versions_kept_and_retired("k1+pad_copy-aa", {"k1+pad_copy-aa", "k1+pad_copy-bb", "k1"},
                                            {"k2+pad_copy-aa", "k2", "k1+other-aa", "k1+pad_copy-aa+other-aa"}),
            7);
}

// The CPU backend names its pool's hand-off after its kernels ("+handoff-<hash>"): another
// hand-off keeps the model (every multi-thread config of a problem pays it alike), in either
// order beside a padding copy; another kernel hash, or an unknown part, retires it.
TEST(CostModelVersions, AnotherHandoffKeepsTheModelAndOtherKernelsRetireIt) {
  if (!CostModel::built_in()) SKIP_UNLESS_CI(CostModel::not_built_in_reason());
  EXPECT_EQ(check_versions_kept_and_retired(
                "k1+handoff-aa",
                {"k1+handoff-aa", "k1+handoff-bb", "k1", "k1+pad_copy-cc+handoff-dd", "k1+handoff-dd+pad_copy-cc"},
                {"k2+handoff-aa", "k1+handoff-aa+other-aa", "k1+other-aa+handoff-aa", "handoff-aa"}),
            9);
}

// A peer library at another version than the model was trained on does not refuse the model
// (Debian's OpenBLAS names the core it picked, so two CPUs of one fingerprint differ there): the
// peer is set aside, timed in full and not ranked, and the model ranks the rest. The same where
// a tuning finds the model and where an evaluation scores it.
TEST(CostModelPeers, APeerAtAnotherVersionIsTimedNotRanked) {
  if (!CostModel::built_in()) SKIP_UNLESS_CI(CostModel::not_built_in_reason());
  const std::string device = "cpu|Synthetic|avx2,|2t|l2=1024K";
  // Trained where OpenBLAS ran 3x slower than the best: the model learns to rank it low.
  auto trained = CostModel::train({with_openblas(synthetic_sweep(device, 0, 60), "0.3 Prescott", 3.0)}, {"s.csv"},
                                  small_training(), false);
  ASSERT_TRUE(trained.is_ok()) << trained.status().message();
  const CostModel& model = **trained;
  EXPECT_TRUE(model.ranks("openblas"));
  const std::map<std::string, std::string> same = {{"alpha", "1"}, {"openblas", "0.3 Prescott"}};
  const std::map<std::string, std::string> changed = {{"alpha", "1"}, {"openblas", "0.3 SkylakeX"}};
  EXPECT_TRUE(model.check_trained_on(device, changed).is_ok()) << "a peer's version alone does not refuse it";
  EXPECT_FALSE(model.check_trained_on(device, {{"alpha", "2"}, {"openblas", "0.3 Prescott"}}).is_ok())
      << "gemmtune's own kernels changed";

  auto as_trained = model.for_device(device, "cpu/avx2/2t", same);
  auto bound = model.for_device(device, "cpu/avx2/2t", changed);
  ASSERT_TRUE(as_trained.is_ok() && bound.is_ok());
  EXPECT_TRUE((*as_trained)->ranks("openblas"));
  EXPECT_TRUE((*as_trained)->set_aside().empty());
  EXPECT_FALSE((*bound)->ranks("openblas"));
  EXPECT_TRUE((*bound)->ranks("alpha"));
  EXPECT_EQ((*bound)->set_aside(), std::vector<std::string>{"openblas"});
  ASSERT_EQ((*bound)->set_aside_notes().size(), 1u);
  EXPECT_EQ((*bound)->set_aside_notes()[0], "openblas (trained on 0.3 Prescott, this build has 0.3 SkylakeX)");

  TempDir dir;
  ASSERT_TRUE(model.save(dir.file("mine.json")).is_ok());
  setenv("GEMMTUNE_MODEL_DIR", dir.path().c_str(), 1);
  auto found = find_cost_model(device, changed, "cpu/avx2/2t");
  auto of_class = find_cost_model("cpu|Elsewhere|avx2,|2t|l2=512K", changed, "cpu/avx2/2t");
  unsetenv("GEMMTUNE_MODEL_DIR");
  ASSERT_TRUE(found.is_ok()) << found.status().message();
  EXPECT_EQ((*found)->set_aside(), std::vector<std::string>{"openblas"});
  ASSERT_TRUE(of_class.is_ok()) << of_class.status().message();
  EXPECT_EQ((*of_class)->set_aside(), std::vector<std::string>{"openblas"}) << "a stand-in sets it aside too";
  // A model across classes that span the device goes before one whose peer changed (the
  // version names the machine too); one whose versions all match goes first.
  SweepData sixteen = synthetic_sweep("cpu|Sixteen|avx512f,|16t|l2=2048K", 0, 30);
  sixteen.meta.device_class = "cpu/avx512_bf16/16t";
  auto across = CostModel::train({synthetic_sweep(device, 0, 30), sixteen}, {"two.csv", "sixteen.csv"},
                                 small_training(), false, true);
  ASSERT_TRUE(across.is_ok()) << across.status().message();
  ASSERT_TRUE((*across)->save(dir.file("across.json")).is_ok());
  setenv("GEMMTUNE_MODEL_DIR", dir.path().c_str(), 1);
  auto across_first = find_cost_model(device, changed, "cpu/avx2/2t");
  auto own_first = find_cost_model(device, same, "cpu/avx2/2t");
  unsetenv("GEMMTUNE_MODEL_DIR");
  ASSERT_TRUE(across_first.is_ok() && own_first.is_ok());
  EXPECT_EQ((*across_first)->info().devices.size(), 2u);
  EXPECT_TRUE((*own_first)->info().devices.empty());
  EXPECT_TRUE((*own_first)->ranks("openblas"));

  // Held out where the new OpenBLAS is the fastest choice of every shape: timed beside the top
  // 1, it is found on every shape; ranked with what the model learnt of the old one, it is not.
  const SweepData faster_now = with_openblas(synthetic_sweep(device, 1000, 12), "0.3 SkylakeX", 0.5);
  auto scored = evaluate_cost_model(model, faster_now, 1);
  ASSERT_TRUE(scored.is_ok()) << scored.status().message();
  EXPECT_EQ(scored->shapes.size(), 12u);
  EXPECT_DOUBLE_EQ(scored->at_k.quality_geomean, 1.0);
  SweepData faster_as_trained = faster_now;
  faster_as_trained.meta.backend_versions["openblas"] = "0.3 Prescott";
  auto ranked = evaluate_cost_model(model, faster_as_trained, 1);
  ASSERT_TRUE(ranked.is_ok()) << ranked.status().message();
  EXPECT_LT(ranked->at_k.quality_geomean, 0.9) << "ranked low as trained, it is left out of the top 1";
}

// A model trained across devices learns what tells them apart from the devices' features: here
// the 16-thread CPU runs every config 4x faster and has its best rank one higher, and the model
// bound to each device predicts that device's times and ranking, to a device between them too.
TEST(CostModelAcrossDevices, TheDevicesFeaturesTellTheirTimesAndRankingsApart) {
  if (!CostModel::built_in()) SKIP_UNLESS_CI(CostModel::not_built_in_reason());
  const std::string two = "cpu|Two|avx2,|2t|l2=512K", sixteen = "cpu|Sixteen|avx2,|16t|l2=2048K";
  SweepData a = synthetic_sweep(two, 0, 40);
  a.meta.backend_versions["openblas"] = "0.3 Zen";  // a peer's version may name the machine
  SweepData b = synthetic_sweep(sixteen, 0, 40);
  b.meta.device_class = "cpu/avx2/16t";
  b.meta.backend_versions["openblas"] = "0.3 SkylakeX";
  for (SweepRow& row : b.rows) {  // the best rank and the next swap places, and all run 4x faster
    const int best = 1 + int(std::log2(double(row.problem.m))) % kRanks;
    int rank = row.measured.config.rank;
    if (rank == best || rank == best + 1) rank = 2 * best + 1 - rank;
    row.measured.time_us = 0.25 * synthetic_time_us(row.problem, rank);
  }
  ASSERT_FALSE(CostModel::train({a, b}, {"a.csv", "b.csv"}, small_training(), false).is_ok())
      << "two devices, not on purpose";
  auto one = CostModel::train({a, a}, {"a.csv", "a2.csv"}, small_training(), false, true);
  ASSERT_FALSE(one.is_ok());
  EXPECT_NE(one.status().message().find("two devices or more"), std::string::npos) << one.status().message();
  SweepData other_kernels = b;
  other_kernels.meta.backend_versions["alpha"] = "2";
  auto changed = CostModel::train({a, other_kernels}, {"a.csv", "b.csv"}, small_training(), false, true);
  ASSERT_FALSE(changed.is_ok()) << "gemmtune's own backends must be at one version";
  EXPECT_NE(changed.status().message().find("backend alpha"), std::string::npos) << changed.status().message();

  auto trained = CostModel::train({a, b}, {"a.csv", "b.csv"}, small_training(), true, true);
  ASSERT_TRUE(trained.is_ok()) << trained.status().message();
  const ModelInfo& info = (*trained)->info();
  EXPECT_EQ(info.devices, (std::vector<std::string>{two, sixteen}));
  EXPECT_EQ(info.device_class, "cpu/avx2/2t + cpu/avx2/16t");
  EXPECT_EQ(info.fast_top_k, 0) << "not fitted on halves that mix devices";
  ASSERT_GE(info.features.size(), 3u);
  EXPECT_EQ(std::vector<std::string>(info.features.end() - 3, info.features.end()), device_feature_names());
  EXPECT_TRUE((*trained)->check_trained_on(sixteen, {{"alpha", "1"}, {"openblas", "0.3 SkylakeX"}}).is_ok())
      << "the peers' versions are the first device's";
  EXPECT_FALSE((*trained)->check_trained_on(sixteen, {{"alpha", "2"}}).is_ok());
  EXPECT_FALSE((*trained)->check_trained_on("cpu|Third|avx2,|4t|l2=1024K", {{"alpha", "1"}}).is_ok());

  const Problem p = *Problem::create(300, 200, 100, DType::f32);
  std::vector<ModelChoice> choices;
  for (int rank = 1; rank <= kRanks; ++rank) choices.push_back({"alpha", *KernelConfig::parse("rank=" + std::to_string(rank))});
  auto unbound = (*trained)->predict(p, choices);
  ASSERT_FALSE(unbound.is_ok());
  EXPECT_NE(unbound.status().message().find("for_device"), std::string::npos) << unbound.status().message();
  EXPECT_FALSE((*trained)->for_device("cuda|H100", "cuda/sm_90a/132sm").is_ok()) << "not a CPU class";
  EXPECT_FALSE((*trained)->for_device("cpu|NoCache|4t", "cpu/avx2/4t").is_ok()) << "no L2 in the fingerprint";
  auto on_two = *(*(*trained)->for_device(two, "cpu/avx2/2t"))->predict(p, choices);
  auto on_sixteen = *(*(*trained)->for_device(sixteen, "cpu/avx2/16t"))->predict(p, choices);
  const int best = 1 + int(std::log2(300.0)) % kRanks;
  auto argmin = [](const std::vector<double>& v) { return int(std::min_element(v.begin(), v.end()) - v.begin()) + 1; };
  EXPECT_EQ(argmin(on_two), best);
  EXPECT_EQ(argmin(on_sixteen), best + 1);
  EXPECT_NEAR(on_two[best - 1] - on_sixteen[best], std::log(4.0), 0.25) << "4x faster on sixteen threads";

  // Saved and loaded, it is the same model; bound to a held-out sweep's device by the evaluation.
  TempDir dir;
  ASSERT_TRUE((*trained)->save(dir.file("across.json")).is_ok());
  auto loaded = CostModel::load(dir.file("across.json"));
  ASSERT_TRUE(loaded.is_ok()) << loaded.status().message();
  EXPECT_EQ((*loaded)->info().devices, info.devices);
  EXPECT_EQ(*(*(*loaded)->for_device(sixteen, "cpu/avx2/16t"))->predict(p, choices), on_sixteen);
  auto eval = evaluate_cost_model(**loaded, synthetic_sweep(two, 1000, 10), 2);
  ASSERT_TRUE(eval.is_ok()) << eval.status().message();
  EXPECT_EQ(eval->shapes.size(), 10u);
}

// Where the class has no model, one trained across devices stands in if their classes span the
// device's (ISA level and threads each within their range), before the nearest class's; bound
// to the device, it ranks. A model of the class itself still comes first.
TEST(CostModelAcrossDevices, AModelAcrossClassesThatSpanTheDevicesStandsInBeforeTheNearestClass) {
  if (!CostModel::built_in()) SKIP_UNLESS_CI(CostModel::not_built_in_reason());
  TempDir dir;
  SweepData two = synthetic_sweep("cpu|Two|avx2,|2t|l2=512K", 0, 30);
  SweepData sixteen = synthetic_sweep("cpu|Sixteen|avx512f,|16t|l2=2048K", 0, 30);
  sixteen.meta.device_class = "cpu/avx512_bf16/16t";
  auto across = CostModel::train({two, sixteen}, {"two.csv", "sixteen.csv"}, small_training(), false, true);
  auto of_two = CostModel::train({two}, {"two.csv"}, small_training(), false);
  ASSERT_TRUE(across.is_ok() && of_two.is_ok());
  ASSERT_TRUE((*across)->save(dir.file("across.json")).is_ok());
  ASSERT_TRUE((*of_two)->save(dir.file("two.json")).is_ok());
  setenv("GEMMTUNE_MODEL_DIR", dir.path().c_str(), 1);
  const std::map<std::string, std::string> versions = {{"alpha", "1"}};
  auto within = find_cost_model("cpu|Eight|avx512f,|8t|l2=1024K", versions, "cpu/avx512/8t");
  auto fewer_threads = find_cost_model("cpu|One|avx512f,|1t|l2=1024K", versions, "cpu/avx512/1t");
  auto of_class = find_cost_model("cpu|OtherTwo|avx2,|2t|l2=512K", versions, "cpu/avx2/2t");
  auto changed = find_cost_model("cpu|Eight|avx512f,|8t|l2=1024K", {{"alpha", "2"}}, "cpu/avx512/8t");
  unsetenv("GEMMTUNE_MODEL_DIR");
  ASSERT_TRUE(within.is_ok()) << within.status().message();
  EXPECT_EQ((*within)->info().devices.size(), 2u);
  const Problem p = *Problem::create(300, 200, 100, DType::f32);
  EXPECT_TRUE((*within)->predict(p, {{"alpha", *KernelConfig::parse("rank=3")}}).is_ok()) << "bound to the device";
  ASSERT_TRUE(fewer_threads.is_ok()) << fewer_threads.status().message();
  EXPECT_EQ((*fewer_threads)->info().device_class, "cpu/avx2/2t") << "1 thread is outside 2..16: the nearest class";
  ASSERT_TRUE(of_class.is_ok());
  EXPECT_EQ((*of_class)->info().device, "cpu|Two|avx2,|2t|l2=512K") << "the class's own model first";
  ASSERT_EQ(changed.status().code(), ErrorCode::not_found);
  EXPECT_NE(changed.status().message().find("trained across cpu/avx2/2t + cpu/avx512_bf16/16t (trained on backend alpha"),
            std::string::npos)
      << changed.status().message();
}

// The shipped Zen 3 model stands in for another CPU of its class whose OpenBLAS picked other
// kernels (its version string names them), as a Zen 2 would.
TEST(CostModelShipped, TheZen3ModelStandsInForAnotherCpuOfItsClassWithOtherPeerBuilds) {
  if (!CostModel::built_in()) SKIP_UNLESS_CI(CostModel::not_built_in_reason());
  const std::string dir = std::string(GEMMTUNE_TEST_SOURCE_DIR) + "/data/models";
  auto info = CostModel::read_info(dir + "/cpu-avx2-2t-amd-epyc-25-1.json");
  ASSERT_TRUE(info.is_ok()) << info.status().message();
  std::map<std::string, std::string> versions = info->backend_versions;
  versions["openblas"] = "OpenBLAS 0.3.21 NO_LAPACKE DYNAMIC_ARCH NO_AFFINITY Zen2 MAX_THREADS=64";
  setenv("GEMMTUNE_MODEL_DIR", dir.c_str(), 1);
  auto found = find_cost_model("cpu|A Zen 2|sse4.2,avx2,fma,f16c,|2t|l2=512K", versions, "cpu/avx2/2t");
  versions["cpu"] = "another kernel version";
  auto stale = find_cost_model("cpu|A Zen 2|sse4.2,avx2,fma,f16c,|2t|l2=512K", versions, "cpu/avx2/2t");
  unsetenv("GEMMTUNE_MODEL_DIR");
  ASSERT_TRUE(found.is_ok()) << found.status().message();
  EXPECT_EQ((*found)->info().device_class, "cpu/avx2/2t");
  EXPECT_FALSE(stale.is_ok()) << "gemmtune's own kernels changed: no model stands in";
}

// The Emerald Rapids and Granite Rapids VMs have one name, class, features and L2; cpuid's
// model in the fingerprint sends each to its own shipped model, each with its own versions.
TEST(CostModelShipped, EachIntelVmOfOneNameAndClassFindsItsOwnModel) {
  if (!CostModel::built_in()) SKIP_UNLESS_CI(CostModel::not_built_in_reason());
  const std::string dir = std::string(GEMMTUNE_TEST_SOURCE_DIR) + "/data/models";
  setenv("GEMMTUNE_MODEL_DIR", dir.c_str(), 1);
  int found_own = 0;
  for (const char* file : {"cpu-avx512_bf16-2t-intel-xeon-processor-6-207.json",
                           "cpu-avx512_bf16-2t-intel-xeon-processor-6-167.json"}) {
    auto info = CostModel::read_info(dir + "/" + file);
    ASSERT_TRUE(info.is_ok()) << file << ": " << info.status().message();
    EXPECT_NE(info->device.find("|family=6,model="), std::string::npos) << info->device;
    auto found = find_cost_model(info->device, info->backend_versions, info->device_class);
    ASSERT_TRUE(found.is_ok()) << file << ": " << found.status().message();
    EXPECT_EQ((*found)->info().device, info->device) << file << " serves its own CPU";
    EXPECT_TRUE((*found)->set_aside().empty()) << file << ": its own versions, nothing set aside";
    found_own += (*found)->info().device == info->device;
  }
  unsetenv("GEMMTUNE_MODEL_DIR");
  EXPECT_EQ(found_own, 2);
}

// The class cpu/avx512_bf16/2t ships three CPUs' models. In bf16, which the Emerald Rapids VM's
// model lacks, that VM (AVX-512 FP16 and AMX, like the Granite Rapids VM) takes the Granite
// Rapids VM's model, which ranks the AMX family; a Zen 4 CPU (the Zen 5 VM's features) takes
// the Zen 5 VM's.
TEST(CostModelShipped, AStandInOfTheClassIsOneOfACpuWithTheSameFeatures) {
  if (!CostModel::built_in()) SKIP_UNLESS_CI(CostModel::not_built_in_reason());
  const std::string dir = std::string(GEMMTUNE_TEST_SOURCE_DIR) + "/data/models";
  auto emr = CostModel::read_info(dir + "/cpu-avx512_bf16-2t-intel-xeon-processor-6-207.json");
  auto gnr = CostModel::read_info(dir + "/cpu-avx512_bf16-2t-intel-xeon-processor-6-167.json");
  auto zen5 = CostModel::read_info(dir + "/cpu-avx512_bf16-2t-amd-epyc-26-2.json");
  ASSERT_TRUE(emr.is_ok() && gnr.is_ok() && zen5.is_ok());
  std::string zen4 = zen5->device;
  zen4.replace(zen4.find("family=26,model=2"), std::string("family=26,model=2").size(), "family=25,model=17");
  const std::string bf16 = "bf16.bf16.bf16:nt";
  setenv("GEMMTUNE_MODEL_DIR", dir.c_str(), 1);
  auto for_emr = find_cost_model(emr->device, emr->backend_versions, emr->device_class, bf16);
  auto for_zen4 = find_cost_model(zen4, zen5->backend_versions, zen5->device_class, bf16);
  unsetenv("GEMMTUNE_MODEL_DIR");
  ASSERT_TRUE(for_emr.is_ok()) << for_emr.status().message();
  ASSERT_TRUE(for_zen4.is_ok()) << for_zen4.status().message();
  EXPECT_EQ((*for_emr)->info().device, gnr->device);
  EXPECT_TRUE((*for_emr)->ranks("amx"));
  EXPECT_EQ((*for_zen4)->info().device, zen5->device);
}

// `--fast` uses a model only for the kinds of problem it was swept on. The Granite Rapids VM's
// model was swept in f32, bf16 and s8 (its AMX family among the ranked), the H200's in bf16,
// f16 and s8, layout nt; a kind left out of a retraining would silently send `--fast` back to
// timing the default space.
TEST(CostModelShipped, TheModelsRankEveryElementTypeTheirMachinesWereSweptIn) {
  if (!CostModel::built_in()) SKIP_UNLESS_CI(CostModel::not_built_in_reason());
  const std::string dir = std::string(GEMMTUNE_TEST_SOURCE_DIR) + "/data/models";
  auto cpu = CostModel::load(dir + "/cpu-avx512_bf16-2t-intel-xeon-processor-6-167.json");
  auto gpu = CostModel::load(dir + "/cuda-sm_90a-132sm.json");
  ASSERT_TRUE(cpu.is_ok()) << cpu.status().message();
  ASSERT_TRUE(gpu.is_ok()) << gpu.status().message();
  int checked = 0;
  for (DType dtype : {DType::f32, DType::bf16, DType::s8}) {
    for (const char* layout : {"nn", "nt"}) {
      const Problem p = *Problem::create(64, 128, 256, dtype, layout);
      EXPECT_TRUE((*cpu)->applies_to(p).is_ok()) << p.describe() << ": " << (*cpu)->applies_to(p).message();
      ++checked;
    }
  }
  EXPECT_TRUE((*cpu)->ranks("amx"));
  const Status f16_on_cpu = (*cpu)->applies_to(*Problem::create(64, 128, 256, DType::f16, "nn"));
  EXPECT_NE(f16_on_cpu.message().find("no data for f16"), std::string::npos) << f16_on_cpu.message();
  // The GPU model: every dtype in nt; bf16 in nn and tn, f16 in nn; nothing in tt, s8 in nt alone.
  const std::map<DType, std::set<std::string>> swept = {
      {DType::bf16, {"nt", "nn", "tn"}}, {DType::f16, {"nt", "nn"}}, {DType::s8, {"nt"}}};
  for (const auto& [dtype, layouts] : swept) {
    for (const char* layout : {"nn", "nt", "tn", "tt"}) {
      const Problem p = *Problem::create(256, 4096, 4096, dtype, layout);
      EXPECT_EQ((*gpu)->applies_to(p).is_ok(), layouts.count(layout) == 1)
          << p.describe() << ": " << (*gpu)->applies_to(p).message();
      ++checked;
    }
  }
  EXPECT_EQ(checked, 18);
}

// The shipped GPU model, trained on the H200, stands in for an H100 (the same Hopper SM count
// and class, another memory), as long as gemmtune's own GPU kernels are the ones it timed.
TEST(CostModelShipped, TheH200ModelStandsInForAnH100OfItsClass) {
  if (!CostModel::built_in()) SKIP_UNLESS_CI(CostModel::not_built_in_reason());
  const std::string dir = std::string(GEMMTUNE_TEST_SOURCE_DIR) + "/data/models";
  auto info = CostModel::read_info(dir + "/cuda-sm_90a-132sm.json");
  ASSERT_TRUE(info.is_ok()) << info.status().message();
  EXPECT_EQ(info->device.find("cuda|NVIDIA H200|"), 0u) << info->device;
  const std::string h100 = "cuda|NVIDIA H100 80GB HBM3|sm90|132sms|drv13000|rt13000|nvrtc13.0";
  std::map<std::string, std::string> versions = info->backend_versions;
  setenv("GEMMTUNE_MODEL_DIR", dir.c_str(), 1);
  auto found = find_cost_model(h100, versions, "cuda/sm_90a/132sm");
  versions["wgmma"] = "gemm_wgmma-another";
  auto stale = find_cost_model(h100, versions, "cuda/sm_90a/132sm");
  unsetenv("GEMMTUNE_MODEL_DIR");
  ASSERT_TRUE(found.is_ok()) << found.status().message();
  EXPECT_EQ((*found)->info().device_class, "cuda/sm_90a/132sm");
  EXPECT_FALSE(stale.is_ok()) << "the Hopper template changed: no model stands in";
}

// A config field added after a model was trained (the Hopper family's cluster, swap and
// ping-pong fields came after the first H100 model) is a feature the model never split on: it
// still loads, and predicts from the features it was trained on, looked up by name; a field
// since split in two (`algo`: today's `kernel` and `rank`) is fed as it was (legacy_feature).
TEST(CostModelFeatures, AModelTrainedBeforeAConfigFieldWasAddedOrSplitStillLoadsAndPredicts) {
  if (!CostModel::built_in()) SKIP_UNLESS_CI(CostModel::not_built_in_reason());
  int loaded = 0;
  // The H100 model of 2026-11-22, shipped until the Hopper and decode families were swept.
  for (const char* file : {"h100-model-2026-11-22.json"}) {
    const std::string path = std::string(GEMMTUNE_TEST_SOURCE_DIR) + "/tests/model/data/" + file;
    auto model = CostModel::load(path);
    ASSERT_TRUE(model.is_ok()) << path << ": " << model.status().message();
    const std::vector<std::string>& trained = (*model)->info().features;
    EXPECT_EQ(std::find(trained.begin(), trained.end(), "cfg_swap"), trained.end()) << "trained before the field";
    const std::string backend = (*model)->info().backends.front();
    const Problem p = *Problem::create(256, 4096, 4096, backend == "cpu" ? DType::f32 : DType::bf16, "nt");
    auto predicted = (*model)->predict(p, {{backend, *KernelConfig::parse("bm=64 bn=128 bk=64")}});
    ASSERT_TRUE(predicted.is_ok()) << predicted.status().message();
    EXPECT_TRUE(std::isfinite(predicted->at(0)));
    // It was trained on `cfg_algo`, cuBLASLt's rank then: fed from today's `rank`, the ranks it
    // told apart still differ (and the same rank predicts the same).
    EXPECT_NE(std::find(trained.begin(), trained.end(), "cfg_algo"), trained.end());
    ASSERT_EQ(backend, "cublaslt");
    auto ranks = (*model)->predict(p, {{backend, *KernelConfig::parse("rank=1")},
                                       {backend, *KernelConfig::parse("rank=6")},
                                       {backend, *KernelConfig::parse("rank=1")}});
    ASSERT_TRUE(ranks.is_ok()) << ranks.status().message();
    EXPECT_NE(ranks->at(0), ranks->at(1));
    EXPECT_EQ(ranks->at(0), ranks->at(2));
    ++loaded;
  }
  EXPECT_EQ(loaded, 1);
}

// GPU-style configs (block sizes, stages, warps, split-k) and a library's algorithm ranks: the
// features are generic over config fields, so the same model code ranks them.
TEST(CostModelGpuStyle, TilesAndSplitKAreLearnedFromTheGenericFields) {
  if (!CostModel::built_in()) SKIP_UNLESS_CI(CostModel::not_built_in_reason());
  auto sweep = [](int first, int count) {
    SweepData data;
    data.meta.device = "cuda|Synthetic|sm90|132sms";
    data.meta.device_class = "cuda/sm_90a/132sm";
    data.meta.backend_versions = {{"mma", "t1"}, {"cublaslt", "l1"}};
    for (int s = first; s < first + count; ++s) {
      const std::int64_t m = std::int64_t(1) << (s % 13);  // 1 … 4096
      const ProblemKey key = ProblemKey::of(*Problem::create(m, 4096, 4096, DType::bf16, "nt"));
      data.shapes.push_back(key.to_string());
      auto add = [&](const std::string& backend, const KernelConfig& c, double time) {
        SweepRow row;
        row.problem = key;
        row.measured.backend = backend;
        row.measured.config = c;
        row.measured.status = ChoiceStatus::ok;
        row.measured.time_us = row.measured.quick_us = time;
        row.measured.full = true;
        data.rows.push_back(row);
      };
      for (int bm : {16, 64, 128}) {
        for (int split : {1, 4}) {
          KernelConfig c = *KernelConfig::parse("bn=128 bk=64 stages=2 warps=4 gm=8");
          c.block_m = bm;
          c.split_k = split;
          // Small m wants a small tile and split-k (more blocks); large m a large tile, no split.
          const double waste = double(bm) / double(std::min<std::int64_t>(m, 128)) + (m < 64 ? 4.0 / split : split);
          add("mma", c, 10 + double(m) * 0.05 + waste);
        }
      }
      add("cublaslt", *KernelConfig::parse("rank=1"), 12 + double(m) * 0.05 + 3);
    }
    return data;
  };
  auto model = CostModel::train({sweep(0, 39)}, {"gpu.csv"}, small_training());
  ASSERT_TRUE(model.is_ok()) << model.status().message();
  EXPECT_EQ((*model)->info().problem_kinds, std::vector<std::string>{"bf16.bf16.bf16:nt"});
  auto rank = [&](std::int64_t m, const std::vector<ModelChoice>& choices) {
    return *(*model)->predict(*Problem::create(m, 4096, 4096, DType::bf16, "nt"), choices);
  };
  const std::vector<ModelChoice> choices = {
      {"mma", *KernelConfig::parse("bm=16 bn=128 bk=64 stages=2 warps=4 gm=8 splitk=4")},
      {"mma", *KernelConfig::parse("bm=128 bn=128 bk=64 stages=2 warps=4 gm=8 splitk=1")},
      {"cublaslt", *KernelConfig::parse("rank=1")}};
  // Few rows: the small tile split four ways; many rows: the large tile, unsplit.
  const std::vector<double> skinny = rank(8, choices), wide = rank(2048, choices);
  EXPECT_LT(skinny[0], skinny[1]);
  EXPECT_LT(skinny[0], skinny[2]);
  EXPECT_LT(wide[1], wide[0]);
}

// Configs rank=1..12 (2 in the default space), each running the reference kernel: what is
// tested is which configs are chosen, not their speed.
class AlphaBackend final : public Backend {
 public:
  std::string_view name() const override { return "alpha"; }
  std::string version() const override { return "1"; }
  std::vector<KernelConfig> configs(const Problem&, SearchSpace space) const override {
    std::vector<KernelConfig> configs;
    for (int rank = 1; rank <= (space == SearchSpace::exhaustive ? kRanks : 2); ++rank) {
      configs.push_back(*KernelConfig::parse("rank=" + std::to_string(rank)));
    }
    return configs;
  }
  Status can_implement(const Problem&, const KernelConfig&) const override { return Status::ok(); }
  Result<std::unique_ptr<Kernel>> prepare(const Problem& p, const KernelConfig&) const override {
    return reference_->prepare(p, {});
  }

 private:
  std::unique_ptr<Backend> reference_ = std::move(create_backends(*find_device("cpu")).back());
};

TEST_F(CostModelTest, ATuningTimesOnlyTheTopKOfTheBackendsTheModelRanks) {
  DeviceInfo device = *find_device("cpu");
  BackendList backends;
  backends.push_back(std::make_unique<AlphaBackend>());
  backends.push_back(std::move(create_backends(device).back()));  // reference: the model does not rank it
  TuneOptions options;
  options.search = SearchSpace::exhaustive;
  options.benchmark.top_k = 3;
  options.model = model_;
  options.timing.samples = 1;
  options.timing.min_sample_ms = 0.01;
  const Problem p = *Problem::create(300, 64, 64, DType::f32);
  TuneOutcome out = autotune(p, device, backends, options);
  int alpha = 0, reference = 0;
  for (const ChoiceReport& c : out.report.choices) (c.backend == "alpha" ? alpha : reference) += 1;
  // The top 3, and the best-ranked config of each other family predicted within
  // kShortlistFamilyBand of the top, which the note counts (here none: ranks are one family).
  EXPECT_GE(alpha, 3);
  EXPECT_EQ(reference, 1);
  EXPECT_NE(out.report.selection.find("cost model: top 3 of 13 choices of the exhaustive space"), std::string::npos)
      << out.report.selection;
  // The backend it does not rank offers its default space, timed in full, and the note says so.
  EXPECT_NE(out.report.selection.find("; the default space of reference, which it does not rank, in full"),
            std::string::npos)
      << out.report.selection;
  if (alpha > 3) {
    const std::string added = ", and the best-ranked of " + std::to_string(alpha - 3) + " more kernel famil";
    EXPECT_NE(out.report.selection.find(added), std::string::npos) << out.report.selection;
  } else {
    EXPECT_EQ(out.report.selection.find("more kernel famil"), std::string::npos) << out.report.selection;
  }
  // The model says rank 1 + log2(300) % 12 = 9 is fastest: it is among the three.
  bool has_best = false;
  for (const ChoiceReport& c : out.report.choices) has_best = has_best || (c.backend == "alpha" && c.config.rank == 9);
  EXPECT_TRUE(has_best);

  // A problem of a kind it has no data for: the default space, timed in full, and said so.
  TuneOutcome other = autotune(*Problem::create(64, 64, 64, DType::bf16), device, backends, options);
  EXPECT_NE(other.report.selection.find("without a usable cost model"), std::string::npos) << other.report.selection;
  alpha = 0;
  for (const ChoiceReport& c : other.report.choices) alpha += c.backend == "alpha" ? 1 : 0;
  EXPECT_EQ(alpha, 2);

  // `--fast` (set_fast) times the model's own fitted k; a model without one, kFastTopK.
  const std::shared_ptr<const CostModel> fitted = fitted_model();
  ASSERT_NE(fitted, nullptr);
  ASSERT_GE(fitted->info().fast_top_k, 1);
  ASSERT_NE(fitted->info().fast_top_k, kFastTopK) << "the test tells the two apart";
  set_fast(options);
  options.model = fitted;
  TuneOutcome fast = autotune(p, device, backends, options);
  const std::string top = "cost model: top " + std::to_string(fitted->info().fast_top_k) + " of 13 choices";
  EXPECT_NE(fast.report.selection.find(top), std::string::npos) << fast.report.selection;
  ASSERT_EQ(model_->info().fast_top_k, 0);
  options.model = model_;
  TuneOutcome plain = autotune(p, device, backends, options);
  EXPECT_NE(plain.report.selection.find("cost model: top " + std::to_string(kFastTopK) + " of 13 choices"),
            std::string::npos)
      << plain.report.selection;
}

// A CPU whose own model knows f32 alone ranks its bf16 products with the model of another
// device of its class that was swept in bf16 (as the Emerald Rapids VM's, f32 alone, and the
// Granite Rapids VM's, f32, bf16 and s8): found per kind, used per problem, and named in the
// tuning's note. A kind no model knows is still timed over the default space.
TEST_F(CostModelTest, AKindTheDevicesModelLacksIsRankedByAnotherDevicesModelThatKnowsIt) {
  const std::string other = "cpu|Other|avx2,|2t|l2=512K";
  auto bf16_model =
      CostModel::train({synthetic_sweep(other, 0, 60, kRanks, 1, DType::bf16)}, {"other.csv"}, small_training());
  ASSERT_TRUE(bf16_model.is_ok()) << bf16_model.status().message();
  TempDir dir;
  ASSERT_TRUE(model_->save(dir.file("mine.json")).is_ok());
  ASSERT_TRUE((*bf16_model)->save(dir.file("other.json")).is_ok());
  const std::string bf16 = "bf16.bf16.bf16:nn";
  const std::map<std::string, std::string> versions = {{"alpha", "1"}};
  setenv("GEMMTUNE_MODEL_DIR", dir.path().c_str(), 1);
  auto own = find_cost_model(kDevice, versions, "cpu/avx2/2t");
  auto for_bf16 = find_cost_model(kDevice, versions, "cpu/avx2/2t", bf16);
  auto for_f16 = find_cost_model(kDevice, versions, "cpu/avx2/2t", "f16.f16.f16:nn");
  auto others = find_cost_models_for_other_kinds(model_->info(), kDevice, versions, "cpu/avx2/2t");
  auto for_a_gpu = find_cost_models_for_other_kinds(model_->info(), "cuda|X|sm90", versions, "cuda/sm_90a/132sm");
  unsetenv("GEMMTUNE_MODEL_DIR");
  ASSERT_TRUE(own.is_ok()) << own.status().message();
  EXPECT_EQ((*own)->info().device, kDevice) << "its own model first, whatever it lacks";
  ASSERT_TRUE(for_bf16.is_ok()) << for_bf16.status().message();
  EXPECT_EQ((*for_bf16)->info().device, other);
  ASSERT_EQ(for_f16.status().code(), ErrorCode::not_found);
  EXPECT_NE(for_f16.status().message().find("mine.json: no data for f16.f16.f16:nn problems"), std::string::npos)
      << for_f16.status().message();
  ASSERT_EQ(others.size(), 1u);
  EXPECT_EQ(others.begin()->first, bf16);
  EXPECT_EQ(others.begin()->second->info().device, other);
  EXPECT_TRUE(for_a_gpu.empty()) << "a CPU's models rank nothing for a GPU";

  DeviceInfo device = *find_device("cpu");
  BackendList backends;
  backends.push_back(std::make_unique<AlphaBackend>());
  TuneOptions options;
  options.search = SearchSpace::exhaustive;
  options.benchmark.top_k = 3;
  options.model = model_;
  options.models_by_kind[bf16] = KindModel{*for_bf16, 4, "trained on another device of its class ('" + other + "')"};
  options.timing.samples = 1;
  options.timing.min_sample_ms = 0.01;
  int checked = 0;
  const TuneOutcome in_bf16 = autotune(*Problem::create(300, 64, 64, DType::bf16), device, backends, options);
  EXPECT_NE(in_bf16.report.selection.find("cost model: top 4 of 12 choices"), std::string::npos)
      << "its own k: " << in_bf16.report.selection;
  EXPECT_NE(in_bf16.report.selection.find("ranked by the model trained on another device of its class ('" + other +
                                          "'): the session's has no data for bf16.bf16.bf16:nn problems"),
            std::string::npos)
      << in_bf16.report.selection;
  checked += 2;
  const TuneOutcome in_f32 = autotune(*Problem::create(300, 64, 64, DType::f32), device, backends, options);
  EXPECT_NE(in_f32.report.selection.find("cost model: top 3 of 12 choices"), std::string::npos) << in_f32.report.selection;
  EXPECT_EQ(in_f32.report.selection.find("ranked by the model"), std::string::npos) << in_f32.report.selection;
  checked += 2;
  const TuneOutcome in_s8 = autotune(*Problem::create(300, 64, 64, DType::s8), device, backends, options);
  EXPECT_NE(in_s8.report.selection.find("without a usable cost model"), std::string::npos) << in_s8.report.selection;
  checked += 1;
  EXPECT_EQ(checked, 5);
}

}  // namespace
}  // namespace gemmtune
