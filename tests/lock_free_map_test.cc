#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "core/lock_free_map.h"

namespace gemmtune {
namespace {

TEST(LockFreeMap, FindsWhatWasInsertedAndKeepsTheFirstValue) {
  LockFreeMap<Dims, int, DimsHash> map;
  EXPECT_EQ(map.find({1, 2, 3}), nullptr);
  *map.insert({1, 2, 3}, std::make_unique<int>(7));
  EXPECT_EQ(*map.insert({1, 2, 3}, std::make_unique<int>(9)), 7);
  EXPECT_EQ(*map.find({1, 2, 3}), 7);
  EXPECT_EQ(map.find({3, 2, 1}), nullptr);
}

TEST(LockFreeMap, ReadersRacingAWriterThroughManyGrowthsSeeOnlyCompleteEntries) {
  LockFreeMap<Dims, std::int64_t, DimsHash> map;
  constexpr std::int64_t kKeys = 20000;  // the table grows from 64 slots many times over
  std::atomic<std::int64_t> published{0};
  std::atomic<bool> bad{false};
  std::vector<std::thread> readers;
  for (int r = 0; r < 3; ++r) {
    readers.emplace_back([&] {
      while (published.load() < kKeys) {
        const std::int64_t upto = published.load();
        for (std::int64_t i = std::max<std::int64_t>(0, upto - 50); i < upto; ++i) {
          const std::int64_t* value = map.find({i, i + 1, i + 2});
          if (value == nullptr || *value != i * 3) bad = true;
        }
      }
    });
  }
  for (std::int64_t i = 0; i < kKeys; ++i) {
    map.insert({i, i + 1, i + 2}, std::make_unique<std::int64_t>(i * 3));
    published.store(i + 1);
  }
  for (auto& reader : readers) reader.join();
  EXPECT_FALSE(bad.load());
  EXPECT_EQ(map.size(), std::size_t(kKeys));
}

}  // namespace
}  // namespace gemmtune
