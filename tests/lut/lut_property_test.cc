// Properties of the lookup table: what is written reads back equal (from a table, and from a
// tuning store through `lut export`), and no corruption of a valid file crashes the parser or
// slips a config in that the file did not hold.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "gemmtune/lut.h"
#include "lut_samples.h"
#include "store/store_entry.h"
#include "store/tuning_store.h"
#include "store/temp_dir.h"

namespace gemmtune {
namespace {

using testing::any_config;
using testing::any_problem_key;
using testing::any_table;

// One corruption of a text, as a disk, a copy or an editor might make it.
std::string corrupt(std::string text) {
  if (text.empty()) return text;
  const std::size_t at = *rc::gen::inRange<std::size_t>(0, text.size());
  const std::size_t length = *rc::gen::inRange<std::size_t>(1, std::min<std::size_t>(64, text.size() - at) + 1);
  switch (*rc::gen::inRange(0, 7)) {
    case 0: text[at] = char(*rc::gen::inRange(0, 256)); break;                         // a byte changed
    case 1: text[at] = char(text[at] ^ (1 << *rc::gen::inRange(0, 8))); break;         // a bit flipped
    case 2: text.insert(at, 1, char(*rc::gen::inRange(0, 256))); break;               // a byte inserted
    case 3: text.erase(at, length); break;                                             // bytes lost
    case 4: text.resize(at); break;                                                    // truncated
    case 5: text.insert(at, text.substr(at, length)); break;                           // a run doubled
    default: {                                                                         // two bytes swapped
      const std::size_t other = *rc::gen::inRange<std::size_t>(0, text.size());
      std::swap(text[at], text[other]);
    }
  }
  return text;
}

RC_GTEST_PROP(LutProperty, ATableReadsBackEqualToWhatWasWritten, ()) {
  const LookupTable table = *any_table();
  auto parsed = LookupTable::parse(table.to_json());
  RC_ASSERT(parsed.is_ok());
  RC_ASSERT(*parsed == table);
}

RC_GTEST_PROP(LutProperty, CorruptionIsRefusedOrChangesNothing, ()) {
  const LookupTable table = *any_table();
  std::string text = table.to_json();
  const int corruptions = *rc::gen::inRange(1, 4);
  for (int i = 0; i < corruptions; ++i) text = corrupt(text);
  auto parsed = LookupTable::parse(text);  // must return, whatever the text
  const std::vector<LutIssue> issues = LookupTable::validate(text);
  RC_ASSERT(parsed.is_ok() == issues.empty());
  if (parsed.is_ok()) {
    // Only changes that leave the content as it was (white space, say) may pass.
    RC_ASSERT(*parsed == table);
  } else {
    RC_ASSERT(parsed.status().code() == ErrorCode::corrupt_data);
    for (const LutIssue& issue : issues) RC_ASSERT(!issue.message.empty());
  }
}

RC_GTEST_PROP(LutProperty, ExportFromTheStoreThenImportGivesTheSameTable, ()) {
  gemmtune::testing::TempDir dir;
  StoreOptions options;
  options.path = dir.file("store.sqlite");
  auto store = std::move(open_sqlite_store(options.path)).value();
  const std::string device = "cpu|Property CPU|avx2,|2t|l2=512K";
  const int entries = *rc::gen::inRange(1, 5);
  std::map<std::string, StoreEntry> by_problem;
  for (int i = 0; i < entries; ++i) {
    StoreEntry entry;
    entry.device = *rc::gen::element(device, std::string("cpu|Other|avx2,|8t|l2=2048K"));
    entry.problem = *any_problem_key();
    entry.problem_description = "random";
    const int choices = *rc::gen::inRange(1, 5);
    for (int j = 0; j < choices; ++j) {
      const KernelConfig config = *any_config();
      const double time = double(*rc::gen::inRange(1, 100000)) / 8.0;
      entry.choices.push_back({"cpu", config.to_string(), *rc::gen::element<std::string>("ok", "ok", "pruned"), time, ""});
    }
    entry.choices[0].status = "ok";  // the pick
    entry.pick_backend = "cpu";
    entry.pick_config = entry.choices[0].config;
    entry.pick_time_us = entry.choices[0].time_us;
    RC_ASSERT(store->put(store_key(entry.device, entry.problem), serialize_entry(entry)).is_ok());
  }
  LutExportOptions export_options;
  export_options.device = device;
  export_options.configs_per_entry = *rc::gen::inRange(1, 4);
  export_options.mode = *rc::gen::element(LutMode::include, LutMode::use);
  auto exported = export_lut(options, export_options);
  RC_ASSERT(exported.is_ok());
  for (const LutEntry& entry : exported->table.entries) {
    RC_ASSERT(entry.device == device);
    RC_ASSERT(int(entry.configs.size()) <= export_options.configs_per_entry);
    RC_ASSERT(entry.mode == export_options.mode);
  }
  auto parsed = LookupTable::parse(exported->table.to_json());
  RC_ASSERT(parsed.is_ok());
  RC_ASSERT(*parsed == exported->table);
}

TEST(LutExport, ThePickComesFirstThenTheFastestCorrectChoices) {
  gemmtune::testing::TempDir dir;
  StoreOptions options;
  options.path = dir.file("store.sqlite");
  auto store = std::move(open_sqlite_store(options.path)).value();
  StoreEntry entry;
  entry.device = "dev";
  entry.problem = "f32.f32.f32:nn:8x8x8:ld8.8.8:b0";
  entry.choices = {{"cpu", "thr=1", "ok", 3.0, ""},
                   {"cpu", "thr=2", "wrong_result", 0.5, "bad"},
                   {"onednn", "thr=1", "ok", 1.0, ""},
                   {"openblas", "-", "ok", 2.0, ""}};
  entry.pick_backend = "cpu";  // within the noise band of onednn, say: the pick is what the store says
  entry.pick_config = "thr=1";
  entry.pick_time_us = 3.0;
  ASSERT_TRUE(store->put(store_key(entry.device, entry.problem), serialize_entry(entry)).is_ok());
  LutExportOptions export_options;
  export_options.configs_per_entry = 3;
  auto exported = export_lut(options, export_options);
  ASSERT_TRUE(exported.is_ok()) << exported.status().message();
  ASSERT_EQ(exported->table.entries.size(), 1u);
  const std::vector<LutChoice>& configs = exported->table.entries[0].configs;
  ASSERT_EQ(configs.size(), 3u);
  EXPECT_EQ(configs[0].backend, "cpu");
  EXPECT_EQ(configs[1].backend, "onednn");
  EXPECT_EQ(configs[2].backend, "openblas");
  export_options.device_class = "cpu/avx2/2t";
  EXPECT_FALSE(export_lut(options, export_options).is_ok()) << "a class needs the device whose entries it names";
  export_options.device = "dev";
  exported = export_lut(options, export_options);
  ASSERT_TRUE(exported.is_ok());
  EXPECT_EQ(exported->table.entries[0].device_class, "cpu/avx2/2t");
  EXPECT_TRUE(exported->table.entries[0].device.empty());
}

}  // namespace
}  // namespace gemmtune
