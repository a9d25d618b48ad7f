// Crash safety, measured: writers killed with SIGKILL at random points lose nothing they had
// committed, leave no gap and no half entry, for each way gemmtune writes its store: put,
// put_all, `gemmtune cache import` and a Session saving a tuning. 100 kills each.
//
// Each writer writes numbered units (an entry, a batch of entries, an import file, a tuning)
// in order and reports each unit once the store returned from writing it. After each kill the
// test opens the store as the next process would and requires: every reported unit present
// whole; at most one more (committed, killed before it could report); no unit half written;
// every earlier round's records unchanged; nothing else; every record a valid entry filed
// under its own key.
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <thread>

#include <gtest/gtest.h>

#include "gemmtune/session.h"
#include "kill_harness.h"
#include "store/store_entry.h"
#include "store/store_transfer.h"
#include "store/tuning_store.h"
#include "temp_dir.h"

namespace gemmtune {
namespace {

using gemmtune::testing::CommitReporter;
using gemmtune::testing::kill_after_first_commit;
using gemmtune::testing::KillOutcome;
using gemmtune::testing::TempDir;

constexpr int kKills = 100;

// An entry of writer `round`'s unit `unit`, record `r`: about 2 KB, so that entries straddle
// SQLite's 4 KB pages and a torn write would show.
StoreEntry entry_for(int round, std::int64_t unit, int r) {
  StoreEntry entry;
  entry.device = "kill-test-writer-" + std::to_string(round);
  entry.problem = "unit-" + std::to_string(unit) + "-record-" + std::to_string(r);
  entry.problem_description = "m=" + std::to_string(unit) + " n=" + std::to_string(r) + " k=8 f32 nn";
  entry.backend_versions = {{"cpu", "v1"}, {"reference", "v1"}};
  entry.pick_backend = "cpu";
  entry.pick_config = "block_m=" + std::to_string(4 + unit % 60);
  entry.pick_time_us = 1.0 + double(unit);
  for (int c = 0; c < 24; ++c) {
    entry.choices.push_back({"cpu", "block_m=" + std::to_string(4 + c), "ok", 1.0 + c + double(unit) / 7, ""});
  }
  entry.created_unix = 1700000000 + unit;
  return entry;
}

StoreRecord record_for(int round, std::int64_t unit, int r) {
  const StoreEntry entry = entry_for(round, unit, r);
  return {store_key(entry.device, entry.problem), serialize_entry(entry)};
}

std::vector<StoreRecord> unit_of(int round, std::int64_t unit, int records) {
  std::vector<StoreRecord> out;
  for (int r = 0; r < records; ++r) out.push_back(record_for(round, unit, r));
  return out;
}

// The keys of a round's unit, with the value each must hold ("": any valid entry of that key,
// for a tuning whose times nobody can foretell).
using UnitKeys = std::function<std::vector<StoreRecord>(std::int64_t unit)>;

// Why `value` is not a valid entry filed under `key`, as a lookup reads it (schema, fields,
// checksum); "" when it is.
std::string invalid_entry(const std::string& key, const std::string& value) {
  auto entry = parse_entry(value);
  if (!entry.is_ok()) return entry.status().message();
  if (store_key(entry->device, entry->problem) != key) return "filed under another key";
  return "";
}

// What the store held after the rounds so far, and the counts the tests assert.
struct StoreLedger {
  std::map<std::string, std::string> kept;  // every record committed by an earlier round
  int kills = 0;
  std::int64_t units = 0;            // committed units, over all rounds
  std::int64_t unreported_units = 0;  // committed, killed before the report
};

// Checks the store after one round (see the top of the file); on success adds the round's
// committed records to the ledger. Returns the failure, or "".
std::string check_round(const std::string& path, const KillOutcome& outcome, const UnitKeys& unit_keys,
                        StoreLedger& ledger) {
  if (!outcome.trouble.empty()) return outcome.trouble;
  const std::int64_t reported = std::int64_t(outcome.reported.size());
  for (std::int64_t i = 0; i < reported; ++i) {
    if (outcome.reported[std::size_t(i)] != i) return "the writer reported its units out of order";
  }
  for (const auto& file : std::filesystem::directory_iterator(std::filesystem::path(path).parent_path())) {
    if (file.path().filename().string().find(".corrupt-") != std::string::npos) return "the store was found corrupt";
  }
  auto store = open_sqlite_store(path);
  if (!store.is_ok()) return "cannot open the store: " + store.status().to_string();
  auto records = (*store)->list();
  if (!records.is_ok()) return "cannot list the store: " + records.status().to_string();
  std::map<std::string, std::string> found;
  for (StoreRecord& record : *records) found.emplace(std::move(record.key), std::move(record.value));
  for (const auto& [key, value] : ledger.kept) {
    auto it = found.find(key);
    if (it == found.end()) return "an earlier round's committed record is gone: " + key;
    if (it->second != value) return "an earlier round's committed record changed: " + key;
    found.erase(it);
  }
  std::int64_t units = 0;
  std::vector<StoreRecord> committed;
  for (;; ++units) {
    const std::vector<StoreRecord> wanted = unit_keys(units);
    std::size_t present = 0;
    for (const StoreRecord& want : wanted) present += found.count(want.key);
    if (present == 0) break;
    if (present != wanted.size()) {
      return "unit " + std::to_string(units) + " is half written: " + std::to_string(present) + " of " +
             std::to_string(wanted.size()) + " records";
    }
    for (const StoreRecord& want : wanted) {
      auto it = found.find(want.key);
      if (!want.value.empty() && it->second != want.value) return "record " + want.key + " holds other bytes than written";
      if (std::string why = invalid_entry(it->first, it->second); !why.empty()) {
        return "record " + want.key + " is not a valid entry: " + why;
      }
      committed.push_back({it->first, it->second});
      found.erase(it);
    }
  }
  if (units < reported) {
    return "lost commits: the writer reported " + std::to_string(reported) + " units, the store holds " +
           std::to_string(units) + " of them with no gap";
  }
  if (units > reported + 1) return "units beyond the one in flight: " + std::to_string(units) + " after " + std::to_string(reported);
  if (!found.empty()) return "a record nobody wrote, or past a gap: " + found.begin()->first;
  for (StoreRecord& record : committed) ledger.kept.emplace(std::move(record.key), std::move(record.value));
  ++ledger.kills;
  ledger.units += units;
  ledger.unreported_units += units - reported;
  return "";
}

// After every round: the store has every committed record, parsing as a valid entry, and
// nothing else.
void expect_store_holds_exactly(const std::string& path, const StoreLedger& ledger) {
  auto store = open_sqlite_store(path);
  ASSERT_TRUE(store.is_ok());
  auto records = (*store)->list();
  ASSERT_TRUE(records.is_ok());
  ASSERT_EQ(records->size(), ledger.kept.size());
  for (const StoreRecord& record : *records) {
    auto kept = ledger.kept.find(record.key);
    ASSERT_NE(kept, ledger.kept.end()) << record.key;
    EXPECT_EQ(record.value, kept->second);
    EXPECT_EQ(invalid_entry(record.key, record.value), "") << record.key;
  }
}

void report_ledger(const char* what, const StoreLedger& ledger) {
  std::printf("%s: %d kills, %lld units committed (%lld of them unreported when killed), %zu records checked, 0 lost\n",
              what, ledger.kills, static_cast<long long>(ledger.units), static_cast<long long>(ledger.unreported_units),
              ledger.kept.size());
  ::testing::Test::RecordProperty("kills", ledger.kills);
  ::testing::Test::RecordProperty("records", int(ledger.kept.size()));
}

// The rounds of one kind of writer against one file: `write(round, reporter)` runs in the
// child until killed; each kill comes up to `max_delay` after its first report.
void kill_rounds(const char* what, const std::string& path, std::chrono::microseconds max_delay,
                 const std::function<void(int round, const CommitReporter&)>& write,
                 const std::function<UnitKeys(int round)>& unit_keys) {
  ASSERT_TRUE(open_sqlite_store(path).is_ok());  // the file exists before the first kill
  std::mt19937 random(20261125);
  StoreLedger ledger;
  for (int round = 0; round < kKills; ++round) {
    const auto delay = std::chrono::microseconds(random() % (max_delay.count() + 1));
    const KillOutcome outcome = kill_after_first_commit([&](const CommitReporter& reporter) { write(round, reporter); }, delay);
    const std::string failure = check_round(path, outcome, unit_keys(round), ledger);
    ASSERT_EQ(failure, "") << what << ", round " << round << " (killed " << delay.count() << " us after the first report)";
  }
  EXPECT_EQ(ledger.kills, kKills);
  EXPECT_GE(ledger.units, kKills) << "each round commits at least the unit it waits for";
  expect_store_holds_exactly(path, ledger);
  report_ledger(what, ledger);
}

TEST(StoreKill, EveryReportedPutSurvivesAHundredKillsWithNoGapAndNoHalfEntry) {
  TempDir dir;
  const std::string path = dir.file("put.sqlite");
  kill_rounds(
      "put", path, std::chrono::microseconds(3000),
      [&](int round, const CommitReporter& reporter) {
        auto store = open_sqlite_store(path);
        if (!store.is_ok()) _exit(10);
        for (std::int64_t unit = 0;; ++unit) {
          const StoreRecord record = record_for(round, unit, 0);
          if (!(*store)->put(record.key, record.value).is_ok()) _exit(11);
          reporter.committed(unit);
        }
      },
      [](int round) { return [round](std::int64_t unit) { return unit_of(round, unit, 1); }; });
}

constexpr int kBatch = 8;

TEST(StoreKill, EveryReportedPutAllSurvivesAHundredKillsWholeOrNotAtAll) {
  TempDir dir;
  const std::string path = dir.file("put_all.sqlite");
  kill_rounds(
      "put_all", path, std::chrono::microseconds(3000),
      [&](int round, const CommitReporter& reporter) {
        auto store = open_sqlite_store(path);
        if (!store.is_ok()) _exit(10);
        for (std::int64_t unit = 0;; ++unit) {
          if (!(*store)->put_all(unit_of(round, unit, kBatch)).is_ok()) _exit(11);
          reporter.committed(unit);
        }
      },
      [](int round) { return [round](std::int64_t unit) { return unit_of(round, unit, kBatch); }; });
}

// An export document of one unit's entries, as `gemmtune cache export` writes them.
std::string import_file(const TempDir& dir, int round, std::int64_t unit) {
  nlohmann::json entries = nlohmann::json::array();
  for (int r = 0; r < kBatch; ++r) entries.push_back(entry_to_json(entry_for(round, unit, r)));
  const nlohmann::json document = {{"format", kExportFormat}, {"schema", kStoreSchemaVersion}, {"entries", entries}};
  const std::string file = dir.file("import-" + std::to_string(round) + "-" + std::to_string(unit) + ".json");
  std::ofstream(file) << document.dump();
  return file;
}

// The CLI itself, one process per import, run by the child in turn: the child reports an
// import once its `gemmtune cache import` exits 0. The kill takes the child's process group,
// so it lands on an import in flight, anywhere from its start-up to its exit.
TEST(StoreKill, EveryReportedCacheImportSurvivesAHundredKillsWholeOrNotAtAll) {
  TempDir dir;
  const std::string path = dir.file("import.sqlite");
  constexpr int kFilesPerRound = 12;
  kill_rounds(
      "cache import", path, std::chrono::microseconds(40000),
      [&](int round, const CommitReporter& reporter) {
        // Written before the loop: the kill is meant for the imports, not for this.
        std::vector<std::string> files;
        for (int unit = 0; unit < kFilesPerRound; ++unit) files.push_back(import_file(dir, round, unit));
        ::unsetenv("GEMMTUNE_REDIS_URL");  // the local file alone
        for (std::int64_t unit = 0;; ++unit) {
          // More imports than a round's kill can wait for; past the last file the round would
          // end on its own, which the harness reports.
          if (unit == kFilesPerRound) _exit(12);
          const pid_t pid = fork();
          if (pid == 0) {
            const int null = open("/dev/null", O_WRONLY);
            dup2(null, STDERR_FILENO);  // its "imported 8 entries into ...", 100 times over
            execl(GEMMTUNE_CLI, GEMMTUNE_CLI, "cache", "import", files[std::size_t(unit)].c_str(), "--any-device",
                  "--cache", path.c_str(), static_cast<char*>(nullptr));
            _exit(13);
          }
          int status = 0;
          if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) _exit(14);
          reporter.committed(unit);
        }
      },
      [](int round) { return [round](std::int64_t unit) { return unit_of(round, unit, kBatch); }; });
}

// Problem `unit` of round `round`: each round and unit a shape of its own.
Problem tuned_problem(int round, std::int64_t unit) { return Problem::create(1 + unit, 4 + round, 8, DType::f32).value(); }

SessionOptions session_options(const std::string& path) {
  SessionOptions options;
  options.store.path = path;
  options.store.mode = StoreMode::read_write;
  options.store.redis_url = "";
  options.tuning.timing.samples = 1;
  options.tuning.timing.min_sample_ms = 0.05;
  options.tuning.timing.warmup_runs = 0;
  return options;
}

// The Session is created in the child (its thread pool must not cross a fork) and killed
// anywhere in its tunings, the store write at the end of each among them.
TEST(StoreKill, EveryTuningASessionSavedSurvivesAHundredKills) {
  TempDir dir;
  const std::string path = dir.file("session.sqlite");
  auto device = find_device("cpu");
  ASSERT_TRUE(device.is_ok());
  const std::string fingerprint = device->fingerprint();
  kill_rounds(
      "session save", path, std::chrono::microseconds(100000),
      [&](int round, const CommitReporter& reporter) {
        auto session = Session::create(session_options(path));
        if (!session.is_ok()) _exit(10);
        for (std::int64_t unit = 0;; ++unit) {
          if (!(*session)->tune(tuned_problem(round, unit)).is_ok()) _exit(11);
          reporter.committed(unit);
        }
      },
      [&](int round) {
        return [round, fingerprint](std::int64_t unit) {
          return std::vector<StoreRecord>{
              {store_key(fingerprint, ProblemKey::of(tuned_problem(round, unit)).to_string()), ""}};
        };
      });
  // What the kills left is what a Session uses: the first tuning of every round, which each
  // round waited for, is a store hit for a new Session.
  auto session = Session::create(session_options(path));
  ASSERT_TRUE(session.is_ok());
  for (int round = 0; round < kKills; ++round) {
    auto report = (*session)->tune_or_load(tuned_problem(round, 0));
    ASSERT_TRUE(report.is_ok()) << report.status().to_string();
    EXPECT_TRUE(report->store_hit) << "round " << round;
  }
}

}  // namespace
}  // namespace gemmtune
