// What a lookup costs at each level of the data flow (shared/design.md): the in-memory
// dispatch table, the local SQLite store, the shared Redis store. Targets: < 100 ns, < 50 us,
// < 1 ms. Results: bench/results/*-store-lookup.md.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <memory>

#include "gemmtune/session.h"
#include "store/redis_server.h"
#include "store/store_entry.h"
#include "store/temp_dir.h"
#include "store/tuning_store.h"

namespace gemmtune {
namespace {

// An entry the size a default-space tuning leaves: 20 choices.
StoreEntry typical_entry() {
  StoreEntry entry;
  entry.device = find_device("cpu")->fingerprint();
  entry.problem = "f32.f32.f32:nn:64x64x64:ld64.64.64:b0";
  entry.problem_description = "m=64 n=64 k=64 f32 nn";
  entry.backend_versions = {{"cpu", "0123456789abcdef"}, {"onednn", "3.0.0"}, {"openblas", "OpenBLAS 0.3.21"}, {"reference", "1"}};
  entry.pick_backend = "cpu";
  entry.pick_config = "bm=64 bn=64 bk=64 mm=6 mn=16 thr=1 isa=avx2";
  entry.pick_time_us = 4.25;
  for (int i = 0; i < 20; ++i) entry.choices.push_back({"cpu", "bm=64 bn=64 bk=64 mm=6 mn=16 thr=1 isa=avx2", "ok", 4.25 + i, ""});
  entry.created_unix = 1700000000;
  return entry;
}

// Store get + parse + checksum: what a Session pays on a store hit before preparing the kernel.
void lookup_loop(benchmark::State& state, TuningStore& store) {
  const StoreEntry entry = typical_entry();
  const std::string key = store_key(entry.device, entry.problem);
  if (!store.put(key, serialize_entry(entry)).is_ok()) {
    state.SkipWithError("cannot write the entry");
    return;
  }
  for (auto _ : state) {
    auto text = store.get(key);
    auto parsed = parse_entry(*text);
    benchmark::DoNotOptimize(parsed);
  }
}

void BM_DispatchHit(benchmark::State& state) {
  SessionOptions options;
  options.store.mode = StoreMode::off;
  options.tuning.timing.samples = 1;
  options.tuning.timing.min_sample_ms = 0.05;
  auto session = Session::create(options);
  // 1x1x1: the kernel does one multiply-add, so the time is the dispatch.
  const Problem problem = Problem::create(1, 1, 1, DType::f32).value();
  float a = 1, b = 2, c = 0;
  if (!(*session)->gemm(problem, &a, &b, &c).is_ok()) state.SkipWithError("gemm failed");
  for (auto _ : state) {
    Status status = (*session)->gemm(problem, &a, &b, &c);
    benchmark::DoNotOptimize(status);
  }
}
BENCHMARK(BM_DispatchHit);

void BM_SqliteHit(benchmark::State& state) {
  testing::TempDir dir;
  auto store = open_sqlite_store(dir.file("bench.sqlite"));
  if (!store.is_ok()) return state.SkipWithError("cannot open SQLite store");
  lookup_loop(state, **store);
}
BENCHMARK(BM_SqliteHit);

void BM_SqliteGetOnly(benchmark::State& state) {
  testing::TempDir dir;
  auto store = open_sqlite_store(dir.file("bench.sqlite"));
  if (!store.is_ok()) return state.SkipWithError("cannot open SQLite store");
  const std::string value = serialize_entry(typical_entry());
  (void)(*store)->put("key", value);
  for (auto _ : state) benchmark::DoNotOptimize((*store)->get("key"));
}
BENCHMARK(BM_SqliteGetOnly);

void BM_RedisHit(benchmark::State& state) {
  if (const std::string why = testing::redis_unavailable_reason(); !why.empty()) return state.SkipWithError(why.c_str());
  testing::RedisServer server;
  if (!server.ready()) return state.SkipWithError("redis-server did not start");
  auto store = open_redis_store(server.url());
  if (!store.is_ok()) return state.SkipWithError("cannot reach redis-server");
  lookup_loop(state, **store);
}
BENCHMARK(BM_RedisHit);

}  // namespace
}  // namespace gemmtune

BENCHMARK_MAIN();
