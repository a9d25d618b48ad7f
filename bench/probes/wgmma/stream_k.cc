// The probe's `streamk` mode: the stream-K variants checked on odd shapes and launched twice,
// then timed beside the plain grid and cuBLASLt, with the division the kernel makes.
#include <algorithm>

#include "../../../src/backends/cuda/kernels/wgmma_stream_k.cuh"
#include "wgmma_probe.h"

namespace wgmma_probe {

// ---- stream-K against the plain grid ----

// The mid shapes whose last wave is partial on 132 SMs, and 4096³ where it is nearly full.
static const char* kStreamKShapes = "300x14336x4096,1000x14336x4096,2048x14336x4096,256x4096x4096,512x6144x4096,3000x4096x4096,"
                                    "4096x4096x4096";
// The default list's main tiles: cooperative 128×256 alone and in a cluster of 2, ping-pong 128×128.
static const char* kStreamKConfigs[] = {"128.256.4.2.1.1", "128.256.4.2.2.1", "128.128.6.2.1.1.pp", "256.128.4.2.1.1"};

static Config with_stream_k(Config c) {
  c.stream_k = true;
  return c;
}

// Correctness of the stream-K variants: odd shapes (k not a multiple of a stage, several tiles
// a CTA, tiles past the edge of a cluster), alpha/beta, s8, and the timed shapes; each case
// launched twice on freshly poisoned C, so a tile counter left non-zero shows as a wrong C.
static int check_stream_k(const std::vector<Config>& stream_k_configs) {
  std::vector<Case> cases;
  std::vector<std::vector<long long>> shapes = {{300, 520, 4104}, {129, 1000, 1000}, {1000, 1032, 760},
                                                {2048, 2048, 192}, {520, 3000, 2056}};
  for (const auto& sh : parse_shapes(kStreamKShapes)) shapes.push_back(sh);
  for (const auto& sh : shapes) {
    for (const Config& c : stream_k_configs) cases.push_back({Shape{sh[0], sh[1], sh[2], Type::bf16, Type::bf16}, c});
  }
  for (const Config& c : stream_k_configs) {
    cases.push_back({Shape{300, 520, 4104, Type::bf16, Type::f32, true, true, -0.5f, 0.75f}, c});
    cases.push_back({Shape{264, 1032, 1040, Type::s8, Type::s32, true, true, 1.0f, 1.0f}, c});
    cases.push_back({Shape{200, 648, 1000, Type::f16, Type::f16, false, false, 1.0f, 0.0f}, c});
  }
  return check_cases(cases, 2, "stream-K check");
}

// The division the kernel makes for a config on a shape (wgmma_stream_k.cuh), for the table.
static std::string division_of(const Config& c, const std::vector<long long>& sh) {
  int dummy;
  const Mapping map = map_problem(Shape{sh[0], sh[1], sh[2], Type::bf16, Type::bf16}, c, &dummy, &dummy);
  const WgmmaInstance& w = map.instance;
  const int clusters = g_modules.at(instance_key(w)).clusters;
  const int tiles = int(gemmtune::cuda::wgmma_cluster_tiles(w, map.m, map.n));
  const int rows = int((map.m + w.block_m * w.cluster_m - 1) / (w.block_m * w.cluster_m));
  const gt_sk_division d = gt_sk_divide(tiles, clusters, int((sh[2] + 63) / 64), rows <= w.group_m ? rows : 1);
  char text[96];
  std::snprintf(text, sizeof text, "T=%d G=%d dp=%d sk=%d R=%d", tiles, clusters, d.dp_tiles, d.sk_tiles, d.lanes);
  return text;
}

int run_stream_k(std::vector<Config> configs) {
  if (configs.empty()) {
    for (const char* text : kStreamKConfigs) configs.push_back(parse_config(text));
  }
  std::vector<Config> stream_k, all;
  for (const Config& c : configs) stream_k.push_back(with_stream_k(c));
  for (std::size_t i = 0; i < configs.size(); ++i) {
    all.push_back(configs[i]);
    all.push_back(stream_k[i]);
  }
  const int failed = check_stream_k(stream_k);
  const std::vector<std::vector<long long>> shapes = parse_shapes(kStreamKShapes);
  compile_for_shapes(Type::bf16, shapes, all);
  std::vector<ShapeTimes> times;
  for (const auto& sh : shapes) {
    times.push_back(time_shape(Type::bf16, sh, all));
    std::printf("timed %s\n", shape_name(sh).c_str());
  }
  // The table: per config, plain and stream-K µs and their ratio; then the best of each kind
  // against cuBLASLt (ratio = cuBLASLt's time / ours, above 1 faster).
  std::printf("\nbf16 nt, µs (median of 15 samples of 20 launches, lower of 2 rounds); sk/plain = plain time / stream-K time\n");
  std::printf("%-16s %8s", "shape", "cublas");
  for (const Config& c : configs) std::printf(" | %-20s %7s %7s", c.name().c_str(), "sk", "gain");
  std::printf(" | %10s %10s\n", "plain/cub", "best/cub");
  for (std::size_t s = 0; s < shapes.size(); ++s) {
    const ShapeTimes& t = times[s];
    std::printf("%-16s %8.1f", shape_name(shapes[s]).c_str(), t.peer);
    double best_plain = 1e30, best = 1e30;
    for (std::size_t i = 0; i < configs.size(); ++i) {
      const double plain = t.configs[2 * i], sk = t.configs[2 * i + 1];
      std::printf(" | %-20.1f %7.1f %7.3f", plain, sk, plain / sk);
      best_plain = std::min(best_plain, plain);
      best = std::min({best, plain, sk});
    }
    std::printf(" | %10.3f %10.3f\n", t.peer / best_plain, t.peer / best);
  }
  std::printf("\ndivisions (wgmma_stream_k.cuh; T cluster tiles, G clusters at once, R lanes):\n");
  for (const auto& sh : shapes) {
    std::printf("%-16s", shape_name(sh).c_str());
    for (const Config& c : stream_k) std::printf("  %s: %s", c.name().c_str(), division_of(c, sh).c_str());
    std::printf("\n");
  }
  std::printf("stream-K check: %s\n", failed == 0 ? "all passed" : "FAILURES above");
  return failed == 0 ? 0 : 1;
}

}  // namespace wgmma_probe
