#include "features.h"

#include <cmath>
#include <cstdlib>

#include "../core/config_upgrade.h"
#include "gemmtune/dtype.h"

namespace gemmtune {
namespace {

// Dims a block field divides: each gives ceil(dim / block) and the padding ratio
// ceil(dim / block) * block / dim, which decide how much of the last tile is wasted. Fields
// are looked up by their short names (KernelConfig::to_string()).
struct Tiling {
  std::string_view field;
  char dim;  // 'm', 'n' or 'k'
};
constexpr Tiling kTilings[] = {{"bm", 'm'}, {"bn", 'n'}, {"bk", 'k'}, {"mm", 'm'}, {"mn", 'n'}};

double log2_of(double value) { return std::log2(std::max(value, 1.0)); }

std::int32_t field_value(const std::vector<std::pair<std::string_view, std::int32_t>>& fields, std::string_view name) {
  for (const auto& [field, value] : fields) {
    if (field == name) return value;
  }
  return 0;
}

std::int64_t dim_of(const Problem& p, char dim) { return dim == 'm' ? p.m() : dim == 'n' ? p.n() : p.k(); }

}  // namespace

std::vector<std::string> feature_names(const std::vector<std::string>& backends) {
  std::vector<std::string> names = {"log2_m",     "log2_n",          "log2_k",       "a_bytes",     "c_bytes",
                                    "a_row_major", "b_row_major",    "beta_nonzero", "log2_flops",  "log2_bytes",
                                    "flops_per_byte"};
  for (std::string_view field : KernelConfig::field_names()) names.push_back("cfg_" + std::string(field));
  for (const Tiling& t : kTilings) {
    names.push_back("tiles_" + std::string(t.field));
    names.push_back("pad_" + std::string(t.field));
  }
  names.insert(names.end(), {"log2_blocks", "log2_blocks_per_thread", "log2_micro_tiles_per_thread", "log2_grid"});
  for (const std::string& backend : backends) names.push_back("backend_" + backend);
  return names;
}

std::optional<std::pair<int, int>> cpu_class_parts(const std::string& device_class) {
  const std::size_t isa_end = device_class.find('/', 4);
  if (device_class.rfind("cpu/", 0) != 0 || isa_end == std::string::npos || device_class.back() != 't') {
    return std::nullopt;
  }
  const int level = cpu_isa_from_name(std::string_view(device_class).substr(4, isa_end - 4));
  const int threads = std::atoi(device_class.c_str() + isa_end + 1);
  if (level < 0 || threads <= 0) return std::nullopt;
  return std::pair{level, threads};
}

std::vector<std::string> device_feature_names() { return {"device_isa_level", "device_threads", "device_l2_kib"}; }

Result<std::vector<float>> device_features(const std::string& fingerprint, const std::string& device_class) {
  const auto parts = cpu_class_parts(device_class);
  if (!parts) return invalid_argument("device features are those of a CPU class (cpu/ISA/Nt), not '" + device_class + "'");
  const std::size_t l2 = fingerprint.find("|l2=");
  const long l2_kib = l2 == std::string::npos ? 0 : std::atol(fingerprint.c_str() + l2 + 4);
  if (l2_kib <= 0) return invalid_argument("device '" + fingerprint + "' names no L2 size (|l2=...K)");
  return std::vector<float>{float(parts->first), float(parts->second), float(l2_kib)};
}

void append_features(const Problem& p, std::string_view backend, const KernelConfig& config,
                     const std::vector<std::string>& backends, std::vector<float>& out) {
  const double bytes = p.min_bytes();
  out.push_back(float(log2_of(double(p.m()))));
  out.push_back(float(log2_of(double(p.n()))));
  out.push_back(float(log2_of(double(p.k()))));
  out.push_back(float(dtype_size(p.a_type())));
  out.push_back(float(dtype_size(p.c_type())));
  out.push_back(p.a_layout() == Layout::row_major ? 1.0f : 0.0f);
  out.push_back(p.b_layout() == Layout::row_major ? 1.0f : 0.0f);
  out.push_back(p.beta() != 0 ? 1.0f : 0.0f);
  out.push_back(float(log2_of(p.flops())));
  out.push_back(float(log2_of(bytes)));
  out.push_back(float(bytes > 0 ? p.flops() / bytes : 0.0));

  const auto fields = config.fields();
  for (const auto& [name, value] : fields) out.push_back(float(value));
  // A swapped kernel (swap=1) computes Cᵀ = Bᵀ·Aᵀ: its block rows tile n and its columns m.
  const bool swapped = field_value(fields, "swap") != 0;
  for (const Tiling& t : kTilings) {
    const double block = field_value(fields, t.field);
    char tiled = t.dim;
    if (swapped && t.field[0] == 'b' && tiled != 'k') tiled = tiled == 'm' ? 'n' : 'm';  // bm, bn
    const double dim = double(dim_of(p, tiled));
    const double tiles = block > 0 ? std::ceil(dim / block) : 0;
    out.push_back(float(tiles));
    out.push_back(float(block > 0 && dim > 0 ? tiles * block / dim : 0));
  }
  // Work per thread: output blocks (GPU thread blocks, CPU macro-tiles) and register tiles,
  // over the threads (CPU) and split-k slices that share them.
  auto tiles = [&](std::string_view rows, std::string_view cols, bool swap) {
    const double r = field_value(fields, rows), c = field_value(fields, cols);
    const double m = double(swap ? p.n() : p.m()), n = double(swap ? p.m() : p.n());
    return r > 0 && c > 0 ? std::ceil(m / r) * std::ceil(n / c) : 0.0;
  };
  const double blocks = tiles("bm", "bn", swapped);
  const double threads = std::max<std::int32_t>(1, field_value(fields, "thr"));
  const double split = std::max<std::int32_t>(1, field_value(fields, "splitk"));
  out.push_back(float(log2_of(blocks)));
  out.push_back(float(blocks > 0 ? std::log2(blocks / threads) : 0));
  const double micro = tiles("mm", "mn", false);
  out.push_back(float(micro > 0 ? std::log2(micro / threads) : 0));
  out.push_back(float(log2_of(blocks * split)));
  for (const std::string& name : backends) out.push_back(name == backend ? 1.0f : 0.0f);
}

bool is_legacy_feature(std::string_view name) { return name == "cfg_algo"; }

float legacy_feature(std::string_view name, std::string_view backend, const KernelConfig& config) {
  return name == "cfg_algo" ? float(legacy_algo_number(backend, config)) : 0.0f;
}

std::string problem_kind(const ProblemKey& key) {
  const std::string text = key.to_string();
  // "a.b.c:LL:..." → "a.b.c:LL", and ":tf32" when the key allows TF32 (other kernels run).
  return text.substr(0, text.find(':', text.find(':') + 1)) + (key.allow_tf32 ? ":tf32" : "");
}

std::string problem_kind(const Problem& problem) { return problem_kind(ProblemKey::of(problem)); }

}  // namespace gemmtune
