// The fleet store against a real redis-server, alone and behind a local SQLite file.
#include <gtest/gtest.h>

#include "ci_skip.h"
#include "gemmtune/session.h"
#include "redis_server.h"
#include "store/store_entry.h"
#include "temp_dir.h"

namespace gemmtune {
namespace {

using gemmtune::testing::RedisServer;
using gemmtune::testing::TempDir;

class RedisStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const std::string why = gemmtune::testing::redis_unavailable_reason(); !why.empty()) {
      SKIP_UNLESS_CI("Redis tests skipped: " + why);
    }
    server_ = std::make_unique<RedisServer>();
    ASSERT_TRUE(server_->ready()) << "redis-server did not answer at " << server_->url();
  }

  SessionOptions options(const std::string& local_path, const std::string& redis_url) {
    SessionOptions options;
    options.store.path = local_path;
    options.store.mode = StoreMode::read_write;
    options.store.redis_url = redis_url;
    options.tuning.timing.samples = 1;
    options.tuning.timing.min_sample_ms = 0.05;
    options.tuning.timing.warmup_runs = 1;
    return options;
  }

  std::unique_ptr<RedisServer> server_;
  TempDir dir_;
};

Problem tiny(std::int64_t m = 8) { return Problem::create(m, 8, 8, DType::f32).value(); }

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST_F(RedisStoreTest, ReadsBackWhatItWrote) {
  auto store = open_redis_store(server_->url());
  ASSERT_TRUE(store.is_ok()) << store.status().to_string();
  ASSERT_TRUE((*store)->put("a key with spaces|and bars", "{\"v\":1}").is_ok());
  ASSERT_TRUE((*store)->put_all({{"b", "2"}, {"c", "3"}}).is_ok());
  EXPECT_EQ(*(*store)->get("a key with spaces|and bars"), "{\"v\":1}");
  EXPECT_EQ((*store)->get("missing").status().code(), ErrorCode::not_found);
  EXPECT_EQ((*store)->list()->size(), 3u);
  ASSERT_TRUE((*store)->clear().is_ok());
  EXPECT_EQ((*store)->list()->size(), 0u);
}

TEST_F(RedisStoreTest, SessionWithAnEmptyLocalStoreHitsTheEntryAnotherMachineWrote) {
  const std::string here = dir_.file("here.sqlite"), there = dir_.file("there.sqlite");
  auto writer = Session::create(options(there, server_->url()));
  ASSERT_TRUE(writer.is_ok());
  auto first = (*writer)->tune_or_load(tiny());
  ASSERT_TRUE(first.is_ok());
  EXPECT_FALSE(first->store_hit);

  auto reader = Session::create(options(here, server_->url()));
  ASSERT_TRUE(reader.is_ok());
  auto second = (*reader)->tune_or_load(tiny());
  ASSERT_TRUE(second.is_ok());
  EXPECT_TRUE(second->store_hit);
  EXPECT_EQ(second->best_choice()->backend, first->best_choice()->backend);

  // The remote hit was copied to the local file: it answers without Redis now.
  server_->stop();
  auto local_only = Session::create(options(here, ""));
  EXPECT_TRUE((*local_only)->tune_or_load(tiny())->store_hit);
}

TEST_F(RedisStoreTest, RedisStoppedMidRunTuningAndDispatchCarryOnWithOneWarning) {
  auto session = Session::create(options(dir_.file("local.sqlite"), server_->url()));
  ASSERT_TRUE(session.is_ok());
  ASSERT_TRUE((*session)->tune_or_load(tiny(8)).is_ok());
  server_->stop();

  ::testing::internal::CaptureStderr();
  std::vector<float> a(32 * 8, 1.0f), b(64, 1.0f), c(32 * 8, 0.0f);
  for (std::int64_t m : {16, 24, 32}) {
    auto report = (*session)->tune_or_load(tiny(m));
    ASSERT_TRUE(report.is_ok()) << report.status().to_string();
    ASSERT_TRUE((*session)->gemm(tiny(m), a.data(), b.data(), c.data()).is_ok());
  }
  const std::string said = ::testing::internal::GetCapturedStderr();
  EXPECT_FLOAT_EQ(c[0], 8.0f);
  EXPECT_EQ(count(said, "warning"), 1) << said;
  EXPECT_NE(said.find("local store only"), std::string::npos) << said;

  // The local store kept every result.
  auto local_only = Session::create(options(dir_.file("local.sqlite"), ""));
  for (std::int64_t m : {8, 16, 24, 32}) EXPECT_TRUE((*local_only)->tune_or_load(tiny(m))->store_hit) << m;
}

// After the first timeout the remote is left alone (tiered_store.cc), so one warning means
// one timeout, not one per lookup.
TEST_F(RedisStoreTest, FrozenRedisIsReportedOnceAndTuningCarriesOn) {
  auto session = Session::create(options(dir_.file("local.sqlite"), server_->url()));
  ASSERT_TRUE(session.is_ok());
  server_->freeze();
  ::testing::internal::CaptureStderr();
  for (std::int64_t m : {8, 16, 24, 32}) ASSERT_TRUE((*session)->tune_or_load(tiny(m)).is_ok());
  const std::string said = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(count(said, "warning"), 1) << said;
  EXPECT_NE(said.find("local store only"), std::string::npos) << said;
}

TEST_F(RedisStoreTest, UnreachableUrlAtStartIsAWarningNotAFailure) {
  const std::string closed = "redis://127.0.0.1:" + std::to_string(gemmtune::testing::free_loopback_port()) + "/0";
  ::testing::internal::CaptureStderr();
  auto session = Session::create(options(dir_.file("local.sqlite"), closed));
  ASSERT_TRUE(session.is_ok()) << session.status().to_string();
  auto report = (*session)->tune_or_load(tiny());
  const std::string said = ::testing::internal::GetCapturedStderr();
  ASSERT_TRUE(report.is_ok());
  EXPECT_EQ(count(said, "warning"), 1) << said;
  EXPECT_NE(said.find(closed), std::string::npos) << said;
}

TEST(RedisUrl, MalformedUrlIsAWarningAndTheLocalStoreCarriesOn) {
  TempDir dir;
  SessionOptions options;
  options.store.path = dir.file("local.sqlite");
  options.store.redis_url = "http://not-redis";
  options.tuning.timing.samples = 1;
  options.tuning.timing.min_sample_ms = 0.05;
  ::testing::internal::CaptureStderr();
  auto session = Session::create(options);
  const std::string said = ::testing::internal::GetCapturedStderr();
  ASSERT_TRUE(session.is_ok());
  if (redis_store_built()) EXPECT_NE(said.find("does not start with redis://"), std::string::npos) << said;
  ASSERT_TRUE((*session)->tune_or_load(tiny()).is_ok());
  EXPECT_TRUE(std::filesystem::exists(dir.file("local.sqlite")));
}

}  // namespace
}  // namespace gemmtune
