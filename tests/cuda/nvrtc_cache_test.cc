#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <optional>

#include "backends/cuda/cubin_cache.h"
#include "backends/cuda/mma_backend.h"
#include "backends/cuda/mma_config_space.h"
#include "cuda/h100.h"

namespace gemmtune::cuda {
namespace {

using testing::h100;

TEST(Sha256, MatchesTheFipsTestVectors) {
  EXPECT_EQ(to_hex(sha256("")), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(to_hex(sha256("abc")), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(to_hex(sha256("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(to_hex(sha256(std::string(1000, 'a'))),
            "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3");
}

struct Fixture {
  Problem problem = *Problem::create(100, 200, 300, DType::f16, "nt");
  KernelConfig config = mma_configs(problem, SearchSpace::default_space, h100()).at(0);
  std::string dir = testing::use_fresh_cubin_cache();
};

TEST(CubinCache, ASecondCompileOfTheSameConfigIsACacheHit) {
  Fixture f;
  const CompileStats before = nvrtc_compile_stats();
  auto first = compile_gemm_mma(f.problem, f.config, h100());
  ASSERT_TRUE(first.is_ok()) << first.status().message();
  EXPECT_FALSE(first->from_cache);
  auto second = compile_gemm_mma(f.problem, f.config, h100());
  ASSERT_TRUE(second.is_ok());
  EXPECT_TRUE(second->from_cache);
  EXPECT_EQ(second->cubin, first->cubin);
  const CompileStats after = nvrtc_compile_stats();
  EXPECT_EQ(after.compilations - before.compilations, 1u);
  EXPECT_EQ(after.cache_hits - before.cache_hits, 1u);
  EXPECT_TRUE(std::filesystem::exists(CubinCache(f.dir).path_of(first->key)));
}

TEST(CubinCache, ATruncatedEntryIsDetectedRemovedAndRecompiled) {
  Fixture f;
  auto first = compile_gemm_mma(f.problem, f.config, h100());
  ASSERT_TRUE(first.is_ok()) << first.status().message();
  const std::string path = CubinCache(f.dir).path_of(first->key);
  std::filesystem::resize_file(path, std::filesystem::file_size(path) / 2);
  const CompileStats before = nvrtc_compile_stats();
  auto again = compile_gemm_mma(f.problem, f.config, h100());
  ASSERT_TRUE(again.is_ok());
  EXPECT_FALSE(again->from_cache);
  EXPECT_EQ(again->cubin, first->cubin);
  const CompileStats after = nvrtc_compile_stats();
  EXPECT_EQ(after.corrupt_entries - before.corrupt_entries, 1u);
  EXPECT_EQ(after.compilations - before.compilations, 1u);
  // The rewritten entry is whole again.
  EXPECT_TRUE(CubinCache(f.dir).load(first->key).has_value());
}

TEST(CubinCache, AFlippedByteFailsTheChecksum) {
  const std::string dir = testing::use_fresh_cubin_cache();
  CubinCache cache(dir);
  ASSERT_TRUE(cache.store("k", "payload bytes").is_ok());
  EXPECT_EQ(*cache.load("k"), "payload bytes");
  {
    std::fstream file(cache.path_of("k"), std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(-1, std::ios::end);
    file.put('X');
  }
  std::string why;
  EXPECT_FALSE(cache.load("k", &why).has_value());
  EXPECT_NE(why.find("hash"), std::string::npos) << why;
  EXPECT_FALSE(std::filesystem::exists(cache.path_of("k")));
}

TEST(CubinCache, TheKeyCoversSourceOptionsAndArch) {
  const std::string a = cubin_key("src", {"--gpu-architecture=sm_90a", "-DX=1"});
  EXPECT_EQ(a, cubin_key("src", {"--gpu-architecture=sm_90a", "-DX=1"}));
  EXPECT_NE(a, cubin_key("src2", {"--gpu-architecture=sm_90a", "-DX=1"}));
  EXPECT_NE(a, cubin_key("src", {"--gpu-architecture=sm_80", "-DX=1"}));
  EXPECT_NE(a, cubin_key("src", {"--gpu-architecture=sm_90a", "-DX=2"}));
}

// The worker's verdicts that outlive the process: a mark names one cubin on one problem.
TEST(CubinCache, APassMarkNamesOneCubinOnOneProblem) {
  const CubinCache cache(testing::use_fresh_cubin_cache());
  EXPECT_FALSE(cache.passed("k1", "wgmma|cfg|256x4096x4096"));
  ASSERT_TRUE(cache.mark_passed("k1", "wgmma|cfg|256x4096x4096").is_ok());
  EXPECT_TRUE(cache.passed("k1", "wgmma|cfg|256x4096x4096"));
  // Marking twice is harmless; another problem or another cubin is not covered.
  ASSERT_TRUE(cache.mark_passed("k1", "wgmma|cfg|256x4096x4096").is_ok());
  EXPECT_TRUE(cache.passed("k1", "wgmma|cfg|256x4096x4096"));
  EXPECT_FALSE(cache.passed("k1", "wgmma|cfg|257x4096x4096"));
  EXPECT_FALSE(cache.passed("k2", "wgmma|cfg|256x4096x4096"));
  // The key and the check are kept apart: ("k1a", "b") is not ("k1", "ab").
  ASSERT_TRUE(cache.mark_passed("k1a", "b").is_ok());
  EXPECT_FALSE(cache.passed("k1", "ab"));
}

TEST(CubinCache, AMarkThatCannotBeWrittenSaysWhere) {
  const std::string file = testing::use_fresh_cubin_cache() + "/a-plain-file";
  std::ofstream(file) << "x";
  const Status marked = CubinCache(file).mark_passed("k", "c");
  EXPECT_EQ(marked.code(), ErrorCode::io_error);
  EXPECT_NE(marked.message().find(file), std::string::npos) << marked.message();
  EXPECT_FALSE(CubinCache(file).passed("k", "c"));
}

TEST(CubinCache, TheDirectoryFollowsTheEnvironment) {
  // HOME and XDG_CACHE_HOME go back as they were for the tests after this one.
  struct Restore {
    std::optional<std::string> home = saved("HOME"), xdg = saved("XDG_CACHE_HOME");
    static std::optional<std::string> saved(const char* name) {
      const char* value = std::getenv(name);
      return value ? std::optional<std::string>(value) : std::nullopt;
    }
    static void put(const char* name, const std::optional<std::string>& value) {
      value ? setenv(name, value->c_str(), 1) : unsetenv(name);
    }
    ~Restore() { put("HOME", home), put("XDG_CACHE_HOME", xdg); }
  } restore;
  setenv("GEMMTUNE_CUBIN_CACHE", "/x/y", 1);
  EXPECT_EQ(default_cubin_cache_dir(), "/x/y");
  // A list: the first is written, the rest read; empty entries are no directory.
  setenv("GEMMTUNE_CUBIN_CACHE", "/w::/r1:/r2:", 1);
  EXPECT_EQ(kernel_cache_dirs(), (std::vector<std::string>{"/w", "/r1", "/r2"}));
  EXPECT_EQ(default_cubin_cache_dir(), "/w");
  EXPECT_EQ(CubinCache::from_environment()->dir(), "/w");
  setenv("GEMMTUNE_CUBIN_CACHE", ":", 1);  // names none: the defaults apply
  unsetenv("XDG_CACHE_HOME");
  setenv("HOME", "/home/v", 1);
  EXPECT_EQ(default_cubin_cache_dir(), "/home/v/.cache/gemmtune/cubins");
  unsetenv("GEMMTUNE_CUBIN_CACHE");
  setenv("XDG_CACHE_HOME", "/xdg", 1);
  EXPECT_EQ(default_cubin_cache_dir(), "/xdg/gemmtune/cubins");
  unsetenv("XDG_CACHE_HOME");
  setenv("HOME", "/home/u", 1);
  EXPECT_EQ(default_cubin_cache_dir(), "/home/u/.cache/gemmtune/cubins");
}

// A directory after the first is read, never written: a kernel or a pass mark found there is
// copied into the first, so that it holds every kernel the process used (a bundle filled from
// the user's cache; a program reading a bundle installed read-only).
TEST(CubinCache, AnEntryInALaterDirectoryIsReadAndCopiedIntoTheFirst) {
  const std::string first = testing::use_fresh_cubin_cache(), later = testing::use_fresh_cubin_cache();
  ASSERT_TRUE(CubinCache(later).store("k", "payload bytes").is_ok());
  ASSERT_TRUE(CubinCache(later).mark_passed("k", "check").is_ok());
  const CubinCache both(first, {later});
  EXPECT_FALSE(CubinCache(first).load("k").has_value());
  EXPECT_EQ(both.load("k"), std::optional<std::string>("payload bytes"));
  EXPECT_EQ(CubinCache(first).load("k"), std::optional<std::string>("payload bytes")) << "copied into the first";
  EXPECT_FALSE(CubinCache(first).passed("k", "check"));
  EXPECT_TRUE(both.passed("k", "check"));
  EXPECT_TRUE(CubinCache(first).passed("k", "check")) << "the mark copied too";
  EXPECT_FALSE(both.load("absent").has_value());
  EXPECT_FALSE(both.passed("k", "another check"));
}

TEST(CubinCache, ADamagedEntryInALaterDirectoryIsSkippedAndLeftAsItIs) {
  const std::string first = testing::use_fresh_cubin_cache(), later = testing::use_fresh_cubin_cache();
  const CubinCache read_only(later);
  ASSERT_TRUE(read_only.store("k", "payload bytes").is_ok());
  std::filesystem::resize_file(read_only.path_of("k"), std::filesystem::file_size(read_only.path_of("k")) - 3);
  std::string why;
  EXPECT_FALSE(CubinCache(first, {later}).load("k", &why).has_value());
  EXPECT_NE(why.find(read_only.path_of("k")), std::string::npos) << why;
  EXPECT_NE(why.find("read-only"), std::string::npos) << why;
  EXPECT_TRUE(std::filesystem::exists(read_only.path_of("k"))) << "not removed from a directory only read";
  EXPECT_FALSE(std::filesystem::exists(CubinCache(first).path_of("k")));
}

// What `gemmtune bundle create` relies on: with the user's cache after the bundle's, a kernel
// compiled before is taken from it, not compiled again.
TEST(CubinCache, ACompileTakesAKernelFromALaterDirectoryInsteadOfCompiling) {
  Fixture f;  // compiles into f.dir
  auto compiled = compile_gemm_mma(f.problem, f.config, h100());
  ASSERT_TRUE(compiled.is_ok()) << compiled.status().message();
  const std::string bundle = testing::use_fresh_cubin_cache();  // now the environment's cache
  setenv("GEMMTUNE_CUBIN_CACHE", (bundle + ":" + f.dir).c_str(), 1);
  const CompileStats before = nvrtc_compile_stats();
  auto again = compile_gemm_mma(f.problem, f.config, h100());
  const CompileStats after = nvrtc_compile_stats();
  setenv("GEMMTUNE_CUBIN_CACHE", bundle.c_str(), 1);
  ASSERT_TRUE(again.is_ok()) << again.status().message();
  EXPECT_TRUE(again->from_cache);
  EXPECT_EQ(again->cubin, compiled->cubin);
  EXPECT_EQ(after.compilations - before.compilations, 0u);
  EXPECT_TRUE(std::filesystem::exists(CubinCache(bundle).path_of(compiled->key)));
}

}  // namespace
}  // namespace gemmtune::cuda
