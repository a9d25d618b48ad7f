// The store as a Session sees it: hits across sessions, and every kind of bad entry re-tuned.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "gemmtune/session.h"
#include "store/store_entry.h"
#include "store/tuning_store.h"
#include "temp_dir.h"

namespace gemmtune {
namespace {

using gemmtune::testing::TempDir;

SessionOptions options_with_store(const std::string& path, StoreMode mode = StoreMode::read_write) {
  SessionOptions options;
  options.store.path = path;
  options.store.mode = mode;
  options.store.redis_url = "";
  options.tuning.timing.samples = 1;
  options.tuning.timing.min_sample_ms = 0.05;
  options.tuning.timing.warmup_runs = 1;
  return options;
}

Problem tiny(std::int64_t m = 8) { return Problem::create(m, 8, 8, DType::f32).value(); }

TuneReport tune_or_load(const std::string& path, const Problem& problem, StoreMode mode = StoreMode::read_write) {
  auto session = Session::create(options_with_store(path, mode));
  EXPECT_TRUE(session.is_ok()) << session.status().to_string();
  auto report = (*session)->tune_or_load(problem);
  EXPECT_TRUE(report.is_ok()) << report.status().to_string();
  return report.is_ok() ? *report : TuneReport{};
}

std::string key_of(const Problem& problem) {
  return store_key(find_device("cpu")->fingerprint(), ProblemKey::of(problem).to_string());
}

// Rewrites the stored entry of `problem` through `edit` (on its text).
template <class Edit>
void edit_raw(const std::string& path, const Problem& problem, Edit edit) {
  auto store = open_sqlite_store(path);
  ASSERT_TRUE(store.is_ok());
  auto text = (*store)->get(key_of(problem));
  ASSERT_TRUE(text.is_ok()) << text.status().to_string();
  ASSERT_TRUE((*store)->put(key_of(problem), edit(*text)).is_ok());
}

bool entry_is_intact(const std::string& path, const Problem& problem) {
  auto store = open_sqlite_store(path);
  auto text = (*store)->get(key_of(problem));
  return text.is_ok() && parse_entry(*text).is_ok();
}

// Tunes `problem` after the edit and returns what was said on stderr; the result must be a
// fresh tuning that overwrote the bad entry, and the other entry must be untouched.
std::string retune_after(const std::string& path, const Problem& problem) {
  const Problem other = tiny(16);
  tune_or_load(path, other);
  ::testing::internal::CaptureStderr();
  TuneReport report = tune_or_load(path, problem);
  const std::string said = ::testing::internal::GetCapturedStderr();
  EXPECT_FALSE(report.store_hit);
  EXPECT_TRUE(entry_is_intact(path, problem)) << "the re-tuning must overwrite the bad entry";
  EXPECT_TRUE(tune_or_load(path, other).store_hit) << "other entries must survive";
  return said;
}

TEST(SessionStore, SecondSessionWithTheSameFileGetsAStoreHitAndDoesNotRebenchmark) {
  TempDir dir;
  const std::string path = dir.file("t.sqlite");
  TuneReport first = tune_or_load(path, tiny());
  EXPECT_FALSE(first.store_hit);
  ASSERT_NE(first.best_choice(), nullptr);

  TuneReport second = tune_or_load(path, tiny());
  EXPECT_TRUE(second.store_hit);
  ASSERT_NE(second.best_choice(), nullptr);
  EXPECT_EQ(second.best_choice()->backend, first.best_choice()->backend);
  EXPECT_EQ(second.best_choice()->config, first.best_choice()->config);
  EXPECT_DOUBLE_EQ(second.best_choice()->time_us, first.best_choice()->time_us);
  EXPECT_EQ(second.choices.size(), first.choices.size());
  EXPECT_LT(second.tuning_s, first.tuning_s);
}

TEST(SessionStore, GemmInANewSessionRunsTheStoredPick) {
  TempDir dir;
  const std::string path = dir.file("t.sqlite");
  TuneReport first = tune_or_load(path, tiny());
  auto session = Session::create(options_with_store(path));
  ASSERT_TRUE(session.is_ok());
  std::vector<float> a(64, 1.0f), b(64, 2.0f), c(64, 0.0f);
  ASSERT_TRUE((*session)->gemm(tiny(), a.data(), b.data(), c.data()).is_ok());
  EXPECT_FLOAT_EQ(c[0], 16.0f);
  auto pick = (*session)->pick(tiny());
  ASSERT_TRUE(pick.is_ok());
  EXPECT_EQ(pick->backend, first.best_choice()->backend);
  EXPECT_DOUBLE_EQ(pick->time_us, first.best_choice()->time_us) << "the pick came from the store, not a new tuning";
}

TEST(SessionStore, TuneAlwaysRetunesAndWritesTheNewResult) {
  TempDir dir;
  const std::string path = dir.file("t.sqlite");
  tune_or_load(path, tiny());
  auto session = Session::create(options_with_store(path));
  auto report = (*session)->tune(tiny());
  ASSERT_TRUE(report.is_ok());
  EXPECT_FALSE(report->store_hit);
  TuneReport stored = tune_or_load(path, tiny());
  EXPECT_TRUE(stored.store_hit);
  EXPECT_DOUBLE_EQ(stored.best_choice()->time_us, report->best_choice()->time_us);
}

TEST(SessionStore, ReadOnlyModeReadsButNeverWrites) {
  TempDir dir;
  const std::string path = dir.file("t.sqlite");
  EXPECT_FALSE(tune_or_load(path, tiny(), StoreMode::read_only).store_hit);
  EXPECT_FALSE(std::filesystem::exists(path)) << "read-only creates no file";
  tune_or_load(dir.file("other.sqlite"), tiny(16));  // creates the file with another entry
  std::filesystem::rename(dir.file("other.sqlite"), path);
  EXPECT_FALSE(tune_or_load(path, tiny(), StoreMode::read_only).store_hit);
  EXPECT_FALSE(tune_or_load(path, tiny(), StoreMode::read_only).store_hit);
  tune_or_load(path, tiny());
  EXPECT_TRUE(tune_or_load(path, tiny(), StoreMode::read_only).store_hit);
}

TEST(SessionStore, OffModeTouchesNoFile) {
  TempDir dir;
  const std::string path = dir.file("t.sqlite");
  tune_or_load(path, tiny(), StoreMode::off);
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(SessionStore, CorruptFileIsMovedAsideAndTheSessionStillTunesAndStores) {
  TempDir dir;
  const std::string path = dir.file("t.sqlite");
  {
    std::ofstream out(path, std::ios::binary);
    for (int i = 0; i < 1000; ++i) out << char(i * 37);
  }
  ::testing::internal::CaptureStderr();
  TuneReport report = tune_or_load(path, tiny());
  const std::string said = ::testing::internal::GetCapturedStderr();
  EXPECT_FALSE(report.store_hit);
  EXPECT_NE(said.find(path), std::string::npos) << said;
  int aside = 0;
  for (const auto& file : std::filesystem::directory_iterator(dir.path())) {
    if (file.path().string().find(".corrupt-") != std::string::npos) ++aside;
  }
  EXPECT_EQ(aside, 1) << "the corrupt file stays on disk, renamed";
  EXPECT_TRUE(tune_or_load(path, tiny()).store_hit) << "the fresh file stores results";
}

TEST(SessionStore, TruncatedEntryIsReportedAndRetuned) {
  TempDir dir;
  const std::string path = dir.file("t.sqlite");
  tune_or_load(path, tiny());
  edit_raw(path, tiny(), [](const std::string& text) { return text.substr(0, text.size() / 3); });
  const std::string said = retune_after(path, tiny());
  EXPECT_NE(said.find("not valid JSON"), std::string::npos) << said;
  EXPECT_NE(said.find("re-tuning"), std::string::npos) << said;
}

TEST(SessionStore, EntryWithTamperedChecksumIsReportedAndRetuned) {
  TempDir dir;
  const std::string path = dir.file("t.sqlite");
  tune_or_load(path, tiny());
  edit_raw(path, tiny(), [](const std::string& text) {
    auto json = nlohmann::json::parse(text);
    json["pick"]["time_us"] = 0.000001;  // a "faster" pick someone wrote in by hand
    return json.dump();
  });
  const std::string said = retune_after(path, tiny());
  EXPECT_NE(said.find("checksum"), std::string::npos) << said;
}

TEST(SessionStore, EntryNamingAnUnknownBackendIsReportedAndRetuned) {
  TempDir dir;
  const std::string path = dir.file("t.sqlite");
  tune_or_load(path, tiny());
  edit_raw(path, tiny(), [](const std::string& text) {
    StoreEntry entry = parse_entry(text).value();
    for (StoredChoice& c : entry.choices) {
      if (c.backend == entry.pick_backend && c.config == entry.pick_config) c.backend = "no_such_backend";
    }
    entry.pick_backend = "no_such_backend";
    return serialize_entry(entry);  // checksum intact: only the content is wrong
  });
  const std::string said = retune_after(path, tiny());
  EXPECT_NE(said.find("unknown backend 'no_such_backend'"), std::string::npos) << said;
}

TEST(SessionStore, EntryWithAConfigItsBackendCannotImplementIsReportedAndRetuned) {
  TempDir dir;
  const std::string path = dir.file("t.sqlite");
  tune_or_load(path, tiny());
  edit_raw(path, tiny(), [](const std::string& text) {
    StoreEntry entry = parse_entry(text).value();
    entry.pick_backend = "cpu";
    entry.pick_config = "bm=64 bn=64 bk=64 mm=6 mn=7";
    entry.choices.push_back({"cpu", "bm=64 bn=64 bk=64 mm=6 mn=7", "ok", 0.1});
    return serialize_entry(entry);
  });
  const std::string said = retune_after(path, tiny());
  EXPECT_NE(said.find("can no longer implement"), std::string::npos) << said;
}

// The key leaves alpha out, and libxsmm runs alpha 1 only: a call with another alpha is served
// by the fastest stored choice that can run it, from the store and without a warning (through
// the BLAS drop-in, the reference testers printed ~390 warnings and re-tuned each time).
// Where OpenBLAS's choices were pruned in the stored tuning (a short sample far slower than
// libxsmm's, as a loaded machine gives now and then), they serve all the same: they were verified.
class StoredPickAndAlpha : public ::testing::TestWithParam<const char*> {};

TEST_P(StoredPickAndAlpha, AStoredPickThatCannotRunThisAlphaGivesWayToTheNextStoredChoice) {
  const std::string rival_status = GetParam();
  TempDir dir;
  const std::string path = dir.file("t.sqlite");
  SessionOptions options = options_with_store(path);
  options.tuning.backends = {"libxsmm", "openblas"};
  auto first = Session::create(options);
  ASSERT_TRUE(first.is_ok());
  if ((*first)->backend_names().size() < 2) GTEST_SKIP() << "libxsmm or OpenBLAS not built";
  ASSERT_TRUE((*first)->tune_or_load(tiny()).is_ok());
  // Whichever won, make libxsmm the stored pick, and OpenBLAS's choices timed or pruned.
  edit_raw(path, tiny(), [&](const std::string& text) {
    StoreEntry entry = parse_entry(text).value();
    for (auto& choice : entry.choices) {
      const bool pick = choice.backend == "libxsmm";
      choice.time_us = pick ? 0.1 : 0.2;
      choice.status = pick ? "ok" : rival_status;
      choice.reason = choice.status == "ok" ? "" : "2.0x slower than the fastest in a first sample; not timed further";
    }
    entry.pick_backend = "libxsmm";
    entry.pick_time_us = 0.1;
    for (const auto& choice : entry.choices) {
      if (choice.backend == "libxsmm") entry.pick_config = choice.config;
    }
    return serialize_entry(entry);
  });
  ProblemSpec spec = tiny().spec();
  spec.alpha = 0.5;
  const Problem half = Problem::create(spec).value();
  auto session = Session::create(options);
  ::testing::internal::CaptureStderr();
  auto report = (*session)->tune_or_load(half);
  const std::string said = ::testing::internal::GetCapturedStderr();
  ASSERT_TRUE(report.is_ok()) << report.status().to_string();
  EXPECT_TRUE(report->store_hit);
  EXPECT_EQ(report->best_choice()->backend, "openblas");
  EXPECT_EQ(said, "");
  // alpha 1 still gets the stored pick itself.
  auto same = (*session)->tune_or_load(tiny());
  ASSERT_TRUE(same.is_ok());
  EXPECT_TRUE(same->store_hit);
  EXPECT_EQ(same->best_choice()->backend, "libxsmm");
}

INSTANTIATE_TEST_SUITE_P(SessionStore, StoredPickAndAlpha, ::testing::Values("ok", "pruned"));

TEST(SessionStore, EntryOfAnOlderBackendVersionIsRetunedSilently) {
  TempDir dir;
  const std::string path = dir.file("t.sqlite");
  tune_or_load(path, tiny());
  edit_raw(path, tiny(), [](const std::string& text) {
    StoreEntry entry = parse_entry(text).value();
    entry.backend_versions[entry.pick_backend] = "an older version";
    return serialize_entry(entry);
  });
  const std::string said = retune_after(path, tiny());
  EXPECT_EQ(said.find("warning"), std::string::npos) << "a stale entry is normal, not a fault: " << said;
}

}  // namespace
}  // namespace gemmtune

namespace gemmtune {
namespace {

// Choices of `report` carried over from the store: not timed in this run (calls_per_sample is
// not stored) and holding exactly the time `before` measured. The time alone cannot tell, as a
// re-timed choice on a coarse timer may read the very same median.
int carried_count(const TuneReport& report, const TuneReport& before) {
  int carried = 0;
  for (const ChoiceReport& c : report.choices) {
    if (c.status != ChoiceStatus::ok || c.calls_per_sample != 0) continue;
    for (const ChoiceReport& b : before.choices) {
      if (b.backend == c.backend && b.config == c.config && b.time_us == c.time_us) {
        ++carried;
      }
    }
  }
  return carried;
}

int ok_count(const TuneReport& report, const std::string& backend) {
  int n = 0;
  for (const ChoiceReport& c : report.choices) n += c.status == ChoiceStatus::ok && c.backend == backend;
  return n;
}

TuneReport tune_with_backends(const std::string& path, std::vector<std::string> backends) {
  SessionOptions options = options_with_store(path);
  options.tuning.backends = std::move(backends);
  options.tuning.prune_factor = 0;  // every ok choice gets a time, so carried ones are countable
  auto session = Session::create(options);
  EXPECT_TRUE(session.is_ok());
  auto report = (*session)->tune_or_load(tiny());
  EXPECT_TRUE(report.is_ok()) << report.status().to_string();
  return report.is_ok() ? *report : TuneReport{};
}

TEST(IncrementalTune, NewChoicesAreTimedAndStoredOnesCarriedOver) {
  TempDir dir;
  const std::string path = dir.file("t.sqlite");
  const TuneReport cpu_only = tune_with_backends(path, {"cpu"});
  const int cpu_ok = ok_count(cpu_only, "cpu");
  ASSERT_GE(cpu_ok, 2) << "the test needs several cpu configs";

  // The reference backend is new to this entry: only it and the fastest stored cpu choice run.
  const TuneReport widened = tune_with_backends(path, {"cpu", "reference"});
  EXPECT_FALSE(widened.store_hit);
  EXPECT_EQ(ok_count(widened, "cpu"), cpu_ok) << "every stored cpu choice is still listed";
  EXPECT_GE(ok_count(widened, "reference"), 1);
  EXPECT_EQ(carried_count(widened, cpu_only), cpu_ok - 1) << "all but the re-timed anchor carried over";
  // The pick is a choice timed in this run (the re-timed anchor or a new one), never a carried
  // time, which another run measured.
  ASSERT_NE(widened.best_choice(), nullptr);
  TuneReport pick_only = widened;
  pick_only.choices = {*widened.best_choice()};
  EXPECT_EQ(carried_count(pick_only, cpu_only), 0) << widened.best_choice()->config.to_string();

  // Now the entry covers both: a plain hit.
  EXPECT_TRUE(tune_with_backends(path, {"cpu", "reference"}).store_hit);
}

// The cpu backend's version is its kernels' hash alone (not its config list's source), and a
// stored entry is a hit only while it holds a time for every config offered today: a config
// list that gains configs (here: an entry written before two of today's configs existed) keeps
// its stored times and times only the configs it lacks.
TEST(IncrementalTune, ConfigsAddedToTheListAreTimedAndTheOthersCarriedOver) {
  TempDir dir;
  const std::string path = dir.file("t.sqlite");
  const TuneReport first = tune_with_backends(path, {"cpu"});
  const int cpu_ok = ok_count(first, "cpu");
  ASSERT_GE(cpu_ok, 4) << "the test needs several cpu configs";
  std::vector<std::string> dropped;
  edit_raw(path, tiny(), [&](const std::string& text) {
    StoreEntry entry = parse_entry(text).value();
    std::vector<StoredChoice> kept;
    for (const StoredChoice& c : entry.choices) {
      if (dropped.size() < 2 && c.status == "ok" && c.config != entry.pick_config) {
        dropped.push_back(c.config);
      } else {
        kept.push_back(c);
      }
    }
    entry.choices = kept;
    return serialize_entry(entry);
  });
  ASSERT_EQ(dropped.size(), 2u);
  const TuneReport second = tune_with_backends(path, {"cpu"});
  EXPECT_FALSE(second.store_hit);
  EXPECT_EQ(ok_count(second, "cpu"), cpu_ok) << "the stored choices and the two new ones";
  // All but the two new configs and the re-timed anchor keep their stored times.
  EXPECT_EQ(carried_count(second, first), cpu_ok - 2 - 1);
  for (const std::string& config : dropped) {
    int listed = 0;
    for (const ChoiceReport& c : second.choices) listed += c.config.to_string() == config;
    EXPECT_EQ(listed, 1) << config;
  }
  EXPECT_TRUE(tune_with_backends(path, {"cpu"}).store_hit);
}

TEST(IncrementalTune, NewVersionOfOneBackendRetimesOnlyItsChoices) {
  TempDir dir;
  const std::string path = dir.file("t.sqlite");
  const TuneReport first = tune_with_backends(path, {"cpu", "reference"});
  edit_raw(path, tiny(), [](const std::string& text) {
    StoreEntry entry = parse_entry(text).value();
    entry.backend_versions["reference"] = "an older version";
    return serialize_entry(entry);
  });
  const TuneReport second = tune_with_backends(path, {"cpu", "reference"});
  EXPECT_FALSE(second.store_hit);
  // The stored choices still valid are all cpu's; the fastest of them is the re-timed anchor.
  EXPECT_EQ(carried_count(second, first), ok_count(first, "cpu") - 1) << "cpu times carried, reference re-timed";
  EXPECT_TRUE(tune_with_backends(path, {"cpu", "reference"}).store_hit);
}

}  // namespace
}  // namespace gemmtune
