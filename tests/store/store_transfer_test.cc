// Export and import: the JSON document that moves tuning results between machines.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "store/store_transfer.h"
#include "temp_dir.h"

namespace gemmtune {
namespace {

using gemmtune::testing::TempDir;

StoreEntry entry_for(const std::string& device, const std::string& problem) {
  StoreEntry entry;
  entry.device = device;
  entry.problem = problem;
  entry.problem_description = "m=8 n=8 k=8 f32 nn";
  entry.backend_versions = {{"cpu", "v1"}};
  entry.pick_backend = "cpu";
  entry.pick_config = "-";
  entry.pick_time_us = 1.5;
  entry.choices = {{"cpu", "-", "ok", 1.5}};
  entry.created_unix = 1;
  return entry;
}

Status put_entry(TuningStore& store, const StoreEntry& entry) {
  return store.put(store_key(entry.device, entry.problem), serialize_entry(entry));
}

std::unique_ptr<TuningStore> fresh_store(const TempDir& dir, const std::string& name) {
  return std::move(open_sqlite_store(dir.file(name))).value();
}

TEST(StoreTransfer, ImportOfMalformedJsonNamesTheProblemAndStoresNothing) {
  TempDir dir;
  auto store = fresh_store(dir, "t.sqlite");
  ASSERT_TRUE(put_entry(*store, entry_for("dev", "p0")).is_ok());
  auto imported = import_entries(*store, "{\"format\": \"gemmtune-tuning-store\", \"entries\": [", "dev", false);
  ASSERT_FALSE(imported.is_ok());
  EXPECT_EQ(imported.status().code(), ErrorCode::corrupt_data);
  EXPECT_NE(imported.status().message().find("not valid JSON"), std::string::npos) << imported.status().message();
  EXPECT_EQ(store->list()->size(), 1u) << "what was stored before stays";
}

TEST(StoreTransfer, ImportOfANumberTooLargeOrNestingTooDeepIsCorruptDataNotACrash) {
  // 1e+3075 made nlohmann throw out_of_range, which escaped and terminated the process (found by
  // cache_import_fuzz); 200k levels of nesting would overflow the stack as the entry is copied.
  TempDir dir;
  auto store = fresh_store(dir, "t.sqlite");
  const std::string head = "{\"format\": \"gemmtune-tuning-store\", \"schema\": 1, \"entries\": [";
  for (const std::string& text : {head + "{\"created_unix\": 1e+3075}]}",
                                  head + std::string(200000, '[') + std::string(200000, ']') + "]}"}) {
    auto imported = import_entries(*store, text, "dev", false);
    ASSERT_FALSE(imported.is_ok());
    EXPECT_EQ(imported.status().code(), ErrorCode::corrupt_data);
    EXPECT_TRUE(store->list()->empty());
  }
}

TEST(StoreTransfer, OneBadEntryRejectsTheWholeFile) {
  TempDir dir;
  auto source = fresh_store(dir, "source.sqlite");
  ASSERT_TRUE(put_entry(*source, entry_for("dev", "p1")).is_ok());
  ASSERT_TRUE(put_entry(*source, entry_for("dev", "p2")).is_ok());
  nlohmann::json document = export_entries(*source)->document;
  document["entries"][1]["pick"]["time_us"] = "fast";
  auto target = fresh_store(dir, "target.sqlite");
  auto imported = import_entries(*target, document.dump(), "dev", false);
  ASSERT_FALSE(imported.is_ok());
  EXPECT_NE(imported.status().message().find("entry 1"), std::string::npos) << imported.status().message();
  EXPECT_EQ(target->list()->size(), 0u) << "all or nothing";
}

TEST(StoreTransfer, EntriesOfAnotherDeviceAreRefusedUnlessAnyDevice) {
  TempDir dir;
  auto source = fresh_store(dir, "source.sqlite");
  ASSERT_TRUE(put_entry(*source, entry_for("here", "p1")).is_ok());
  ASSERT_TRUE(put_entry(*source, entry_for("elsewhere", "p1")).is_ok());
  const std::string text = export_entries(*source)->document.dump();

  auto target = fresh_store(dir, "target.sqlite");
  auto imported = import_entries(*target, text, "here", false);
  ASSERT_TRUE(imported.is_ok());
  EXPECT_EQ(imported->imported, 1);
  EXPECT_EQ(imported->other_device, 1);
  imported = import_entries(*target, text, "here", true);
  ASSERT_TRUE(imported.is_ok());
  EXPECT_EQ(imported->imported, 2);
  EXPECT_EQ(target->list()->size(), 2u);
}

TEST(StoreTransfer, ExportLeavesDamagedRecordsOutAndCountsThem) {
  TempDir dir;
  auto store = fresh_store(dir, "t.sqlite");
  ASSERT_TRUE(put_entry(*store, entry_for("dev", "p1")).is_ok());
  ASSERT_TRUE(store->put("v1/dev/p2", "{\"truncated").is_ok());
  auto exported = export_entries(*store);
  ASSERT_TRUE(exported.is_ok());
  EXPECT_EQ(exported->exported, 1);
  EXPECT_EQ(exported->skipped, 1);
}

// Text that survives JSON and SQLite unchanged, including separators used in keys.
rc::Gen<std::string> text() {
  return rc::gen::container<std::string>(rc::gen::oneOf(rc::gen::inRange('a', 'z'), rc::gen::element(' ', '|', ':', '.', '"', '\\')));
}

RC_GTEST_PROP(StoreTransfer, ExportThenImportIntoAnEmptyStoreYieldsTheSameEntries, ()) {
  // Two files for all cases, emptied for each: creating a SQLite file costs a few syncs to
  // disk, a hundred cases of it most of this test's time.
  static TempDir dir;
  static std::unique_ptr<TuningStore> source = fresh_store(dir, "source.sqlite");
  static std::unique_ptr<TuningStore> target = fresh_store(dir, "target.sqlite");
  RC_ASSERT(source->clear().is_ok());
  RC_ASSERT(target->clear().is_ok());
  const int count = *rc::gen::inRange(0, 6);
  for (int i = 0; i < count; ++i) {
    StoreEntry entry = entry_for(*text(), *text() + std::to_string(i));
    entry.pick_backend = *text();
    entry.pick_config = *text();
    entry.pick_time_us = *rc::gen::map(rc::gen::inRange(0, 1000000), [](int v) { return v / 1024.0; });
    entry.backend_versions = {{*text(), *text()}};
    const int choices = *rc::gen::inRange(0, 4);
    entry.choices.clear();
    for (int c = 0; c < choices; ++c) {
      entry.choices.push_back({*text(), *text(), *text(), double(*rc::gen::inRange(-1, 1000)), *text()});
    }
    entry.created_unix = *rc::gen::inRange(0, 2000000000);
    RC_ASSERT(put_entry(*source, entry).is_ok());
  }
  auto exported = export_entries(*source);
  RC_ASSERT(exported.is_ok());
  auto imported = import_entries(*target, exported->document.dump(), "", true);
  RC_ASSERT(imported.is_ok());
  RC_ASSERT(*target->list() == *source->list());
}

}  // namespace
}  // namespace gemmtune
