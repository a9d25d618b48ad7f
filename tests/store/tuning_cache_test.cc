// The public TuningCache: what `gemmtune cache` does, through include/gemmtune/tuning_cache.h
// alone: list, export, import into another store (all or nothing), clear, and the refusals of
// a read-only or absent store.
#include <gtest/gtest.h>

#include <filesystem>

#include "gemmtune/session.h"
#include "gemmtune/tuning_cache.h"
#include "temp_dir.h"

namespace gemmtune {
namespace {

using gemmtune::testing::TempDir;

StoreOptions store_at(const std::string& path, StoreMode mode = StoreMode::read_write) {
  StoreOptions options;
  options.path = path;
  options.mode = mode;
  options.redis_url = "";
  return options;
}

// Tunes `count` tiny problems into the store at `path`; the CPU's fingerprint.
std::string tune_into(const std::string& path, int count) {
  SessionOptions options;
  options.store = store_at(path);
  options.tuning.timing.samples = 1;
  options.tuning.timing.min_sample_ms = 0.05;
  auto session = Session::create(options);
  EXPECT_TRUE(session.is_ok()) << session.status().to_string();
  for (int m = 1; m <= count; ++m) EXPECT_TRUE((*session)->tune_or_load(*Problem::create(m, 8, 8, DType::f32)).is_ok());
  return (*find_device("cpu")).fingerprint();
}

// A Redis URL given for the local file is refused by name, and no file is made after it
// (it used to open a SQLite file at ./redis:/host:port).
TEST(TuningCache, AUrlForTheLocalFileIsRefusedAndMakesNoFile) {
  for (const std::string url : {"redis://127.0.0.1:1", "redis://127.0.0.1:1/0"}) {
    auto cache = TuningCache::open(store_at(url));
    ASSERT_FALSE(cache.is_ok()) << url;
    EXPECT_EQ(cache.status().code(), ErrorCode::invalid_argument) << url;
    EXPECT_NE(cache.status().message().find("not a URL: '" + url + "'"), std::string::npos) << cache.status().message();
    EXPECT_EQ(store_at(url).check().code(), ErrorCode::invalid_argument);
  }
  EXPECT_FALSE(std::filesystem::exists("redis:"));
  EXPECT_TRUE(store_at("off").check().is_ok());
  EXPECT_TRUE(store_at("/tmp/a:b.sqlite").check().is_ok());  // a colon alone is a file name
}

TEST(TuningCache, ListsExportsImportsAndClearsThroughThePublicApi) {
  TempDir dir;
  const std::string from = dir.file("from.sqlite"), to = dir.file("to.sqlite");
  const std::string device = tune_into(from, 3);
  auto source = TuningCache::open(store_at(from));
  ASSERT_TRUE(source.is_ok()) << source.status().to_string();
  auto listed = (*source)->entries();
  ASSERT_TRUE(listed.is_ok());
  ASSERT_EQ(listed->size(), 3u);
  for (const CachedEntry& e : *listed) {
    EXPECT_TRUE(e.damaged.empty()) << e.damaged;
    EXPECT_EQ(e.device, device);
    EXPECT_FALSE(e.backend.empty());
    EXPECT_GT(e.time_us, 0);
    EXPECT_GT(e.choices, 0u);
  }
  auto exported = (*source)->export_json();
  ASSERT_TRUE(exported.is_ok());
  EXPECT_EQ(exported->exported, 3);
  EXPECT_NE(exported->document.find("gemmtune-tuning-store"), std::string::npos);

  auto target = TuningCache::open(store_at(to));
  ASSERT_TRUE(target.is_ok());
  // Another device's entries are refused unless any_device.
  auto refused = (*target)->import_json(exported->document, "some other device", false);
  ASSERT_TRUE(refused.is_ok()) << refused.status().to_string();
  EXPECT_EQ(refused->imported, 0);
  EXPECT_EQ(refused->other_device, 3);
  auto imported = (*target)->import_json(exported->document, device, false);
  ASSERT_TRUE(imported.is_ok());
  EXPECT_EQ(imported->imported, 3);
  EXPECT_EQ((*target)->entries()->size(), 3u);
  // A damaged document (a pick's time that is text) imports nothing and says where.
  std::string damaged = exported->document;
  const std::size_t time = damaged.find("\"time_us\": ");
  ASSERT_NE(time, std::string::npos);
  damaged.insert(time + 11, "\"fast\", \"was\": ");
  auto bad = (*target)->import_json(damaged, device, false);
  EXPECT_EQ(bad.status().code(), ErrorCode::corrupt_data) << bad.status().to_string();
  EXPECT_EQ((*target)->entries()->size(), 3u);

  ASSERT_TRUE((*target)->clear().is_ok());
  EXPECT_EQ((*target)->entries()->size(), 0u);
  EXPECT_EQ(tuning_store_schema_version(), 1);
}

TEST(TuningCache, AReadOnlyStoreRefusesWritesAndAnAbsentOrOffOneIsNamed) {
  TempDir dir;
  const std::string path = dir.file("ro.sqlite");
  tune_into(path, 1);
  auto ro = TuningCache::open(store_at(path, StoreMode::read_only));
  ASSERT_TRUE(ro.is_ok()) << ro.status().to_string();
  EXPECT_EQ((*ro)->mode(), StoreMode::read_only);
  EXPECT_EQ((*ro)->clear().code(), ErrorCode::invalid_argument);
  EXPECT_EQ((*ro)->import_json("{}", "x", true).status().code(), ErrorCode::invalid_argument);
  EXPECT_EQ((*ro)->entries()->size(), 1u) << "nothing was removed";

  auto absent = TuningCache::open(store_at(dir.file("none.sqlite"), StoreMode::read_only));
  EXPECT_EQ(absent.status().code(), ErrorCode::not_found) << absent.status().to_string();
  auto off = TuningCache::open(store_at(path, StoreMode::off));
  EXPECT_EQ(off.status().code(), ErrorCode::invalid_argument);
  EXPECT_NE(off.status().message().find("off"), std::string::npos);
}

}  // namespace
}  // namespace gemmtune
