#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <thread>

#include <gtest/gtest.h>

#include "store/tuning_store.h"
#include "temp_dir.h"

namespace gemmtune {
namespace {

using gemmtune::testing::TempDir;

std::string value_for(int writer, int i) { return "{\"writer\":" + std::to_string(writer) + ",\"i\":" + std::to_string(i) + "}"; }
std::string key_for(int writer, int i) { return "w" + std::to_string(writer) + "/" + std::to_string(i); }

// The child opens its own connection: a SQLite handle must never cross a fork.
[[noreturn]] void write_entries_and_exit(const std::string& path, int writer, int count) {
  auto store = open_sqlite_store(path);
  if (!store.is_ok()) {
    std::fprintf(stderr, "writer %d cannot open the store: %s\n", writer, store.status().to_string().c_str());
    _exit(10);
  }
  for (int i = 0; i < count; ++i) {
    if (!(*store)->put(key_for(writer, i), value_for(writer, i)).is_ok()) _exit(11);
  }
  _exit(0);
}

TEST(SqliteStore, ReadsBackWhatItWrote) {
  TempDir dir;
  auto store = open_sqlite_store(dir.file("sub/dir/t.sqlite"));
  ASSERT_TRUE(store.is_ok()) << store.status().to_string();
  ASSERT_TRUE((*store)->put("a", "1").is_ok());
  ASSERT_TRUE((*store)->put("a", "2").is_ok());
  auto value = (*store)->get("a");
  ASSERT_TRUE(value.is_ok());
  EXPECT_EQ(*value, "2");
  EXPECT_EQ((*store)->get("b").status().code(), ErrorCode::not_found);
  ASSERT_TRUE((*store)->clear().is_ok());
  EXPECT_EQ((*store)->list()->size(), 0u);
}

TEST(SqliteStore, EightProcessesWritingAtOnceLoseNoEntry) {
  TempDir dir;
  const std::string path = dir.file("shared.sqlite");
  constexpr int kWriters = 8, kEach = 50;
  std::vector<pid_t> children;
  for (int w = 0; w < kWriters; ++w) {
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) write_entries_and_exit(path, w, kEach);
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "writer exit status " << status;
  }
  auto store = open_sqlite_store(path);
  ASSERT_TRUE(store.is_ok());
  auto records = (*store)->list();
  ASSERT_TRUE(records.is_ok());
  EXPECT_EQ(records->size(), std::size_t(kWriters * kEach));
  for (int w = 0; w < kWriters; ++w) {
    for (int i = 0; i < kEach; ++i) {
      auto value = (*store)->get(key_for(w, i));
      ASSERT_TRUE(value.is_ok()) << key_for(w, i);
      EXPECT_EQ(*value, value_for(w, i));
    }
  }
}

// The Session's case (threads sharing one store object) and the case of several stores on one
// file in one process, at once: every put is read back whole by its writer and found at the end.
TEST(SqliteStore, ManyThreadsPuttingAndReadingAtOnceLoseNoEntry) {
  TempDir dir;
  const std::string path = dir.file("threads.sqlite");
  auto shared = open_sqlite_store(path);
  ASSERT_TRUE(shared.is_ok()) << shared.status().to_string();
  constexpr int kThreads = 6, kEach = 40;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      // Even threads share the one object; odd ones open a connection of their own.
      std::unique_ptr<TuningStore> own;
      if (t % 2 == 1) {
        auto opened = open_sqlite_store(path);
        if (!opened.is_ok()) {
          ++failures;
          return;
        }
        own = std::move(opened).value();
      }
      TuningStore& store = own ? *own : **shared;
      for (int i = 0; i < kEach; ++i) {
        // Every fourth write is a put_all of one record, so both paths race the others.
        const Status written = i % 4 == 3 ? store.put_all({{key_for(t, i), value_for(t, i)}})
                                          : store.put(key_for(t, i), value_for(t, i));
        auto back = store.get(key_for(t, i));
        if (!written.is_ok() || !back.is_ok() || *back != value_for(t, i)) ++failures;
        if (i % 10 == 0 && !store.list().is_ok()) ++failures;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
  auto records = (*shared)->list();
  ASSERT_TRUE(records.is_ok());
  EXPECT_EQ(records->size(), std::size_t(kThreads * kEach));
}

TEST(SqliteStore, GarbageFileIsRenamedAsideAndAFreshOneCreated) {
  TempDir dir;
  const std::string path = dir.file("garbage.sqlite");
  {
    std::ofstream out(path, std::ios::binary);
    out << "this is not a database, just some bytes \x01\x02\x03 and more bytes to fill a page";
  }
  ::testing::internal::CaptureStderr();
  auto store = open_sqlite_store(path);
  const std::string warning = ::testing::internal::GetCapturedStderr();
  ASSERT_TRUE(store.is_ok()) << store.status().to_string();
  EXPECT_NE(warning.find(path), std::string::npos) << warning;
  EXPECT_NE(warning.find("corrupt"), std::string::npos) << warning;
  int aside = 0;
  for (const auto& file : std::filesystem::directory_iterator(dir.path())) {
    if (file.path().filename().string().rfind("garbage.sqlite.corrupt-", 0) == 0) ++aside;
  }
  EXPECT_EQ(aside, 1) << "the corrupt file must stay on disk, renamed";
  EXPECT_TRUE((*store)->put("k", "v").is_ok());
  EXPECT_EQ(*(*store)->get("k"), "v");
}

TEST(SqliteStore, DatabaseWithDamagedPagesIsRenamedAside) {
  TempDir dir;
  const std::string path = dir.file("damaged.sqlite");
  {
    auto store = open_sqlite_store(path);
    ASSERT_TRUE(store.is_ok());
    std::vector<StoreRecord> records;
    for (int i = 0; i < 200; ++i) records.push_back({key_for(0, i), std::string(300, 'x')});
    ASSERT_TRUE((*store)->put_all(records).is_ok());
  }
  // Checkpointed into the main file by the close; overwrite pages past the header.
  {
    std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(4096 + 100);
    std::string junk(8192, '\xA5');
    file.write(junk.data(), std::streamsize(junk.size()));
  }
  ::testing::internal::CaptureStderr();
  auto store = open_sqlite_store(path);
  const std::string warning = ::testing::internal::GetCapturedStderr();
  ASSERT_TRUE(store.is_ok()) << store.status().to_string();
  EXPECT_NE(warning.find("moved aside"), std::string::npos) << warning;
  EXPECT_EQ((*store)->list()->size(), 0u);
}

TEST(SqliteStore, PutAllWritesEverythingInOneTransaction) {
  TempDir dir;
  auto store = open_sqlite_store(dir.file("all.sqlite"));
  ASSERT_TRUE(store.is_ok());
  ASSERT_TRUE((*store)->put_all({{"a", "1"}, {"b", "2"}}).is_ok());
  EXPECT_EQ((*store)->list()->size(), 2u);
}

}  // namespace
}  // namespace gemmtune
