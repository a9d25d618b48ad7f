#include "store/store_entry.h"

#include <gtest/gtest.h>

namespace gemmtune {
namespace {

StoreEntry sample_entry() {
  StoreEntry entry;
  entry.device = "cpu|Test CPU|avx2,|4t|l2=1024K";
  entry.problem = "f32.f32.f32:nn:8x8x8:ld8.8.8:b0";
  entry.problem_description = "m=8 n=8 k=8 f32 nn";
  entry.backend_versions = {{"cpu", "abc"}, {"reference", "1"}};
  entry.pick_backend = "cpu";
  entry.pick_config = "bm=8 bn=8 bk=8";
  entry.pick_time_us = 0.25;
  entry.choices = {{"cpu", "bm=8 bn=8 bk=8", "ok", 0.25}, {"reference", "-", "ok", 3.5}};
  entry.created_unix = 1700000000;
  return entry;
}

TEST(StoreEntry, RoundTripsThroughItsSerializedForm) {
  const StoreEntry entry = sample_entry();
  auto parsed = parse_entry(serialize_entry(entry));
  ASSERT_TRUE(parsed.is_ok()) << parsed.status().to_string();
  EXPECT_EQ(*parsed, entry);
}

TEST(StoreEntry, TruncatedTextIsCorruptData) {
  const std::string text = serialize_entry(sample_entry());
  auto parsed = parse_entry(text.substr(0, text.size() / 2));
  ASSERT_FALSE(parsed.is_ok());
  EXPECT_EQ(parsed.status().code(), ErrorCode::corrupt_data);
  EXPECT_NE(parsed.status().message().find("not valid JSON"), std::string::npos);
}

TEST(StoreEntry, EditedFieldFailsTheChecksum) {
  nlohmann::json json = entry_to_json(sample_entry());
  json["pick"]["time_us"] = 0.01;
  auto parsed = entry_from_json(json);
  ASSERT_FALSE(parsed.is_ok());
  EXPECT_NE(parsed.status().message().find("checksum"), std::string::npos);
}

TEST(StoreEntry, FieldOfTheWrongTypeIsNamed) {
  nlohmann::json json = entry_to_json(sample_entry());
  json["pick"]["backend"] = 7;
  auto parsed = entry_from_json(json);
  ASSERT_FALSE(parsed.is_ok());
  EXPECT_NE(parsed.status().message().find("'backend'"), std::string::npos) << parsed.status().message();
}

// The checksum recomputed after an edit, as a writer of a bad store could.
nlohmann::json resealed(nlohmann::json json) {
  json["checksum"] = "";
  json["checksum"] = json_checksum(json);
  return json;
}

TEST(StoreEntry, CreationTimeThatIsNoWholeNumberOfSecondsIsRefused) {
  // 1e300 has no int64 value: converting it was undefined behaviour (UBSan in store_entry_fuzz).
  for (const nlohmann::json& created : {nlohmann::json(1e300), nlohmann::json(1.5), nlohmann::json(-1e19)}) {
    nlohmann::json json = entry_to_json(sample_entry());
    json["created_unix"] = created;
    auto parsed = entry_from_json(resealed(json));
    ASSERT_FALSE(parsed.is_ok()) << created.dump();
    EXPECT_NE(parsed.status().message().find("'created_unix'"), std::string::npos) << parsed.status().message();
  }
}

TEST(StoreEntry, NestingDeeperThanAnyEntryIsRefusedBeforeItOverflowsTheStack) {
  // Checking the checksum dumps the document, which recursed once per level: 200k levels of an
  // extra field overflowed the stack.
  const std::string text = serialize_entry(sample_entry());
  const std::string deep = text.substr(0, text.size() - 1) + ",\"x\":" + std::string(200000, '[') +
                           std::string(200000, ']') + "}";
  auto parsed = parse_entry(deep);
  ASSERT_FALSE(parsed.is_ok());
  EXPECT_EQ(parsed.status().code(), ErrorCode::corrupt_data);
  EXPECT_NE(parsed.status().message().find("deeper than"), std::string::npos) << parsed.status().message();
}

TEST(StoreEntry, OtherSchemaVersionIsRejected) {
  nlohmann::json json = entry_to_json(sample_entry());
  json["schema"] = kStoreSchemaVersion + 1;
  EXPECT_FALSE(entry_from_json(json).is_ok());
}

TEST(StoreEntry, ReportFromEntryPointsAtThePick) {
  auto report = report_from_entry(sample_entry());
  ASSERT_TRUE(report.is_ok()) << report.status().to_string();
  EXPECT_TRUE(report->store_hit);
  ASSERT_NE(report->best_choice(), nullptr);
  EXPECT_EQ(report->best_choice()->backend, "cpu");
  EXPECT_DOUBLE_EQ(report->best_choice()->time_us, 0.25);
  EXPECT_EQ(report->choices.size(), 2u);
}

TEST(StoreEntry, KeyCarriesSchemaDeviceAndProblem) {
  EXPECT_EQ(store_key("dev", "prob"), "v" + std::to_string(kStoreSchemaVersion) + "/dev/prob");
}

}  // namespace
}  // namespace gemmtune
