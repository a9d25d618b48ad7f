// Lookup tables for the LUT tests: a fixed sample, and RapidCheck generators of valid ones.
#pragma once

#include <rapidcheck.h>

#include "gemmtune/lut.h"

namespace gemmtune::testing {

inline LookupTable sample_table() {
  KernelConfig tiled;
  tiled.block_m = 64;
  tiled.block_n = 256;
  tiled.block_k = 128;
  tiled.micro_m = 6;
  tiled.micro_n = 32;
  tiled.threads = 2;
  tiled.isa = 2;
  KernelConfig threads;
  threads.threads = 1;
  LookupTable table;
  table.entries = {
      {"cpu|Test CPU|avx2,fma,|4t|l2=1024K", "", "f32.f32.f32:nn:100x300x200:ld200.300.300:b0", LutMode::include,
       {{"cpu", tiled, 12.5}, {"onednn", threads, -1}}},
      {"", "cpu/avx2/4t", "f32.f32.f32:nt:64x4096x4096:ld4096.4096.4096:b0", LutMode::only, {{"onednn", threads, 880}}},
      {"", "cuda/sm_90a/132sm", "bf16.bf16.bf16:nt:256x4096x4096:ld4096.4096.4096:b0", LutMode::use,
       {{"cublaslt", KernelConfig::parse("rank=2").value(), -1}}},
  };
  return table;
}

// A config whose every field is in range (isa and kernel are names).
inline rc::Gen<KernelConfig> any_config() {
  return rc::gen::exec([] {
    KernelConfig c;
    for (std::int32_t* field : {&c.block_m, &c.block_n, &c.block_k, &c.stages, &c.warps, &c.group_m, &c.split_k,
                                &c.micro_m, &c.micro_n, &c.threads, &c.rank}) {
      *field = *rc::gen::weightedOneOf<std::int32_t>({{3, rc::gen::just(0)}, {2, rc::gen::inRange(1, 100000)}});
    }
    c.isa = *rc::gen::inRange(0, 3);
    c.kernel = *rc::gen::inRange(0, kKernelFaultSpin + 1);
    return c;
  });
}

inline rc::Gen<std::string> any_problem_key() {
  return rc::gen::exec([] {
    const std::int64_t m = *rc::gen::inRange<std::int64_t>(1, 5000);
    const std::int64_t n = *rc::gen::inRange<std::int64_t>(1, 5000);
    const std::int64_t k = *rc::gen::inRange<std::int64_t>(1, 5000);
    const DType type = *rc::gen::element(DType::f32, DType::f16, DType::bf16, DType::s8);
    const char* layout = *rc::gen::element("nn", "nt", "tn", "tt");
    return ProblemKey::of(Problem::create(m, n, k, type, layout).value()).to_string();
  });
}

// Device names as fingerprints really look, with the characters that need escaping in JSON.
inline rc::Gen<std::string> any_device_name() {
  return rc::gen::oneOf(rc::gen::element<std::string>("cpu|AMD EPYC|sse4.2,avx2,|2t|l2=1024K", "cuda/sm_90a/132sm",
                                                      "cpu/avx512/2t", "cpu|\"quoted\" \\ model|é|1t|l2=1K"),
                        rc::gen::nonEmpty(rc::gen::container<std::string>(rc::gen::inRange<char>(32, 127))));
}

inline rc::Gen<LookupTable> any_table() {
  return rc::gen::exec([] {
    LookupTable table;
    const int entries = *rc::gen::inRange(0, 6);
    for (int i = 0; i < entries; ++i) {
      LutEntry entry;
      const std::string device = *any_device_name();
      (*rc::gen::arbitrary<bool>() ? entry.device : entry.device_class) = device;
      entry.problem = *any_problem_key();
      entry.mode = *rc::gen::element(LutMode::include, LutMode::only, LutMode::use);
      const int configs = *rc::gen::inRange(1, 4);
      for (int j = 0; j < configs; ++j) {
        LutChoice choice;
        choice.backend = *rc::gen::element<std::string>("cpu", "onednn", "openblas", "reference", "cublaslt", "mma");
        choice.config = *any_config();
        choice.time_us = *rc::gen::oneOf(rc::gen::just(-1.0), rc::gen::map(rc::gen::inRange(0, 1000000), [](int us) {
          return double(us) / 7.0;
        }));
        bool repeated = false;
        for (const LutChoice& earlier : entry.configs) {
          repeated = repeated || (earlier.backend == choice.backend && earlier.config == choice.config);
        }
        if (!repeated) entry.configs.push_back(choice);
      }
      bool duplicate = false;
      for (const LutEntry& earlier : table.entries) {
        duplicate = duplicate || ((earlier.device.empty() ? "class " + earlier.device_class : earlier.device) ==
                                      (entry.device.empty() ? "class " + entry.device_class : entry.device) &&
                                  earlier.problem == entry.problem);
      }
      if (!duplicate) table.entries.push_back(std::move(entry));
    }
    return table;
  });
}

}  // namespace gemmtune::testing
