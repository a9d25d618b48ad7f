// The lookup table's format: what parses, what is refused, and that every problem is named
// with its line.
#include "gemmtune/lut.h"

#include <gtest/gtest.h>

#include <fstream>

#include "lut_samples.h"

namespace gemmtune {
namespace {

using testing::sample_table;

// The line of `needle` in `text` (1-based), so tests need not count lines by hand.
int line_of(const std::string& text, const std::string& needle) {
  const std::size_t at = text.find(needle);
  EXPECT_NE(at, std::string::npos) << needle;
  return 1 + int(std::count(text.begin(), text.begin() + std::ptrdiff_t(at), '\n'));
}

bool has_issue(const std::vector<LutIssue>& issues, int line, const std::string& words) {
  for (const LutIssue& issue : issues) {
    if (issue.line == line && issue.message.find(words) != std::string::npos) return true;
  }
  return false;
}

std::string issues_text(const std::vector<LutIssue>& issues) {
  std::string out;
  for (const LutIssue& issue : issues) out += "\n  line " + std::to_string(issue.line) + ": " + issue.message;
  return out;
}

TEST(LookupTable, ParsesBackWhatToJsonWrites) {
  const LookupTable table = sample_table();
  auto parsed = LookupTable::parse(table.to_json());
  ASSERT_TRUE(parsed.is_ok()) << parsed.status().message();
  EXPECT_EQ(*parsed, table);
  EXPECT_TRUE(LookupTable::validate(table.to_json()).empty());
}

TEST(LookupTable, EveryProblemIsNamedWithItsLine) {
  std::string text = sample_table().to_json();
  // Three independent mistakes in different entries.
  text.replace(text.find("\"mode\": \"use\""), 13, "\"mode\": \"always\"");
  text.replace(text.find("bm=64"), 5, "bm=six");
  text.replace(text.find("\"backend\": \"onednn\""), 19, "\"backend\": \"OneDNN!\"");
  const std::vector<LutIssue> issues = LookupTable::validate(text);
  EXPECT_TRUE(has_issue(issues, line_of(text, "\"always\""), "'mode'")) << issues_text(issues);
  EXPECT_TRUE(has_issue(issues, line_of(text, "bm=six"), "bad value 'six'")) << issues_text(issues);
  EXPECT_TRUE(has_issue(issues, line_of(text, "OneDNN!"), "not a backend name")) << issues_text(issues);
  // The edits also break the checksum, which is reported on its own line.
  EXPECT_TRUE(has_issue(issues, line_of(text, "\"checksum\""), "does not match")) << issues_text(issues);
  auto parsed = LookupTable::parse(text);
  ASSERT_FALSE(parsed.is_ok());
  EXPECT_EQ(parsed.status().code(), ErrorCode::corrupt_data);
  EXPECT_NE(parsed.status().message().find("4 problems"), std::string::npos) << parsed.status().message();
}

TEST(LookupTable, AnEditedTableFailsItsChecksumUntilSealed) {
  std::string text = sample_table().to_json();
  text.replace(text.find("bm=64"), 5, "bm=32");
  const std::vector<LutIssue> issues = LookupTable::validate(text);
  ASSERT_EQ(issues.size(), 1u) << issues_text(issues);
  EXPECT_NE(issues[0].message.find("gemmtune lut seal"), std::string::npos);
  auto sealed = seal_lut_text(text);
  ASSERT_TRUE(sealed.is_ok()) << sealed.status().message();
  auto parsed = LookupTable::parse(*sealed);
  ASSERT_TRUE(parsed.is_ok()) << parsed.status().message();
  EXPECT_EQ(parsed->entries[0].configs[0].config.block_m, 32);
}

TEST(LookupTable, TextThatIsNotJsonIsRefusedWithTheLineOfTheError) {
  const std::string text = "{\n  \"format\": \"gemmtune-lut\",\n  \"version\": 1,\n  \"entries\": [ }\n";
  const std::vector<LutIssue> issues = LookupTable::validate(text);
  ASSERT_EQ(issues.size(), 1u) << issues_text(issues);
  EXPECT_EQ(issues[0].line, 4);
  EXPECT_NE(issues[0].message.find("not valid JSON"), std::string::npos);
  EXPECT_FALSE(LookupTable::parse("").is_ok());
  EXPECT_FALSE(LookupTable::parse("[]").is_ok());
}

TEST(LookupTable, DuplicateKeysAndUnknownKeysAreProblems) {
  std::string text = sample_table().to_json();
  text.replace(text.find("\"mode\": \"include\""), 17, "\"mode\": \"include\", \"mode\": \"use\", \"colour\": 1");
  const std::vector<LutIssue> issues = LookupTable::validate(text);
  const int line = line_of(text, "\"colour\"");
  EXPECT_TRUE(has_issue(issues, line, "duplicate key 'mode'")) << issues_text(issues);
  EXPECT_TRUE(has_issue(issues, line, "unknown key 'colour'")) << issues_text(issues);
}

TEST(LookupTable, EntriesForTheSameDeviceAndProblemAreRefused) {
  LookupTable table = sample_table();
  table.entries.push_back(table.entries.front());
  const std::vector<LutIssue> issues = LookupTable::validate(table.to_json());
  ASSERT_EQ(issues.size(), 1u) << issues_text(issues);
  EXPECT_NE(issues[0].message.find("same device and problem as entry 0"), std::string::npos);
}

TEST(LookupTable, AnEntryMustNameExactlyOneOfDeviceAndClassAndAValidProblem) {
  LookupTable table = sample_table();
  table.entries[1].problem = "f32.f32.f32:nn:8x8x8:ld2.8.8:b0";  // lda 2 < k 8
  table.entries[2].problem = "f32:nn:8x8x8";
  std::string text = table.to_json();
  text.insert(text.find("\"device\":"), "\"device_class\": \"cpu/avx2/4t\", ");  // entry 0 names both
  const std::vector<LutIssue> issues = LookupTable::validate(*seal_lut_text(text));
  EXPECT_EQ(issues.size(), 3u) << issues_text(issues);
  EXPECT_TRUE(has_issue(issues, issues[0].line, "exactly one of 'device'")) << issues_text(issues);
  bool no_valid_problem = false, bad_key = false;
  for (const LutIssue& issue : issues) {
    no_valid_problem = no_valid_problem || issue.message.find("describes no valid problem") != std::string::npos;
    bad_key = bad_key || issue.message.find("expected 5 or 6 parts") != std::string::npos;
  }
  EXPECT_TRUE(no_valid_problem && bad_key) << issues_text(issues);
}

TEST(LookupTable, NestingTooDeepIsRefusedWithoutCrashing) {
  const std::string text = std::string(200000, '[') + std::string(200000, ']');
  auto parsed = LookupTable::parse(text);
  ASSERT_FALSE(parsed.is_ok());
  EXPECT_NE(parsed.status().message().find("nesting deeper"), std::string::npos);
}

TEST(LookupTable, FindPrefersTheFingerprintToTheDeviceClass) {
  DeviceInfo device;
  device.cpu.avx2 = device.cpu.fma = true;
  device.cpu.logical_cores = 4;
  const ProblemKey key = *ProblemKey::parse("f32.f32.f32:nn:64x64x64:ld64.64.64:b0");
  LookupTable table;
  LutEntry by_class{"", device.device_class(), key.to_string(), LutMode::include, {{"cpu", {}, -1}}};
  LutEntry exact = by_class;
  exact.device = device.fingerprint();
  exact.device_class.clear();
  exact.mode = LutMode::use;
  table.entries = {by_class};
  ASSERT_NE(table.find(device, key), nullptr);
  EXPECT_EQ(table.find(device, key)->mode, LutMode::include);
  table.entries.push_back(exact);
  EXPECT_EQ(table.find(device, key)->mode, LutMode::use);
  EXPECT_EQ(table.find(device, *ProblemKey::parse("f32.f32.f32:nn:64x64x32:ld32.64.64:b0")), nullptr);
  device.cpu.logical_cores = 8;  // another class, another fingerprint
  EXPECT_EQ(table.find(device, key), nullptr);
}

TEST(LookupTable, LoadNamesTheFileOfAMalformedTable) {
  const std::string path = ::testing::TempDir() + "/broken-lut.json";
  std::ofstream(path) << "{\"format\": \"gemmtune-lut\"";
  auto table = LookupTable::load(path);
  ASSERT_FALSE(table.is_ok());
  EXPECT_NE(table.status().message().find(path), std::string::npos);
  EXPECT_EQ(LookupTable::load(path + ".missing").status().code(), ErrorCode::io_error);
}

TEST(ProblemKey, ParsesItsOwnTextAndNothingElse) {
  for (const char* text : {"f32.f32.f32:nn:100x300x200:ld200.300.300:b0", "s8.s8.s32:nt:1x2x3:ld3.3.2:b1",
                           "f32.f32.f32:tt:5x6x7:ld9.9.9:b0:tf32"}) {
    auto key = ProblemKey::parse(text);
    ASSERT_TRUE(key.is_ok()) << text << ": " << key.status().message();
    EXPECT_EQ(key->to_string(), text);
  }
  for (const char* text : {"", "f32.f32.f32:nn:100x300x200:ld200.300.300", "f32.f32.f32:xn:1x1x1:ld1.1.1:b0",
                           "f32.f32:nn:1x1x1:ld1.1.1:b0", "f32.f32.f32:nn:01x1x1:ld1.1.1:b0",
                           "f32.f32.f32:nn:1x1x1:ld1.1.1:b2", "f32.f32.f32:nn:-1x1x1:ld1.1.1:b0",
                           "f32.f32.f32:nn:1x1x1:ld1.1.1:b0:fast", "f99.f32.f32:nn:1x1x1:ld1.1.1:b0"}) {
    EXPECT_FALSE(ProblemKey::parse(text).is_ok()) << text;
  }
}

}  // namespace
}  // namespace gemmtune
