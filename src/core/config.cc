#include "gemmtune/config.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <span>
#include <string>

namespace gemmtune {
namespace {

constexpr std::array<std::string_view, 5> kIsaNames{"generic", "avx2", "avx512", "avx512_vnni", "avx512_bf16"};
// KernelConfig::kernel's names, in the order of the kKernel* values (config.h).
constexpr std::array<std::string_view, 16> kKernelNames{
    "main", "gemv", "rows", "dot", "columns", "tile", "stream", "axpy", "pairs", "rows_dots",
    "sgemm", "per_call", "fault_address", "fault_spin", "padded", "any_reduction"};
// Other names parse() reads for a value: each family's own name for its main kernel (0, never
// printed), so that "kernel=mma" or "kernel=packed" says which one is meant.
struct ValueAlias {
  std::string_view name;
  std::int32_t value;
};
constexpr std::array<ValueAlias, 4> kKernelAliases{
    {{"mma", kKernelMma}, {"packed", kKernelPacked}, {"primitive", kKernelMain}, {"once", kKernelMain}}};
constexpr std::array<std::string_view, 3> kASourceNames{"smem", "l1", "group"};
constexpr std::array<std::string_view, 2> kSplitReduceNames{"l2", "cluster"};
constexpr std::array<std::string_view, 2> kGridNames{"balanced", "fill"};

// One row per field: the short name to_string() prints and parse() reads, and for an enumerated
// field the names of its values (value i is names[i]; a number otherwise). Keeping the list as
// data means a new field cannot be printed but not parsed, or the other way round.
struct Field {
  std::string_view name;
  std::int32_t KernelConfig::*member;
  std::span<const std::string_view> value_names = {};
  std::span<const ValueAlias> aliases = {};
};

std::string_view name_of_value(std::span<const std::string_view> names, std::int32_t value) {
  return value >= 0 && value < std::int32_t(names.size()) ? names[std::size_t(value)] : "?";
}

constexpr std::array kFields{
    Field{"bm", &KernelConfig::block_m},     Field{"bn", &KernelConfig::block_n},
    Field{"bk", &KernelConfig::block_k},     Field{"stages", &KernelConfig::stages},
    Field{"warps", &KernelConfig::warps},    Field{"kw", &KernelConfig::k_warps},
    Field{"gm", &KernelConfig::group_m},
    Field{"splitk", &KernelConfig::split_k}, Field{"streamk", &KernelConfig::stream_k},
    Field{"reduce", &KernelConfig::split_reduce, kSplitReduceNames},
    Field{"cm", &KernelConfig::cluster_m},   Field{"cn", &KernelConfig::cluster_n},
    Field{"swap", &KernelConfig::swap_ab},   Field{"pp", &KernelConfig::pingpong},
    Field{"mm", &KernelConfig::micro_m},     Field{"mn", &KernelConfig::micro_n},
    Field{"thr", &KernelConfig::threads},    Field{"isa", &KernelConfig::isa, kIsaNames},
    Field{"copy", &KernelConfig::copy_r},
    Field{"rank", &KernelConfig::rank},      Field{"kernel", &KernelConfig::kernel, kKernelNames, kKernelAliases},
    Field{"a", &KernelConfig::a_source, kASourceNames}, Field{"grid", &KernelConfig::grid, kGridNames},
};

static_assert(kKernelNames[kKernelGemv] == "gemv" && kKernelNames[kKernelRows] == "rows" &&
              kKernelNames[kKernelStream] == "stream" && kKernelNames[kKernelRowsDots] == "rows_dots" &&
              kKernelNames[kKernelSgemm] == "sgemm" && kKernelNames[kKernelPerCall] == "per_call" &&
              kKernelNames[kKernelFaultSpin] == "fault_spin" && kKernelNames[kKernelPadded] == "padded" &&
              kKernelNames[kKernelAnyReduction] == "any_reduction" && kKernelNames.size() == kKernelAnyReduction + 1,
              "kKernelNames follows the kKernel* values of config.h");

}  // namespace

std::string_view cpu_isa_name(std::int32_t isa) { return name_of_value(kIsaNames, isa); }
std::int32_t cpu_isa_from_name(std::string_view name) {
  const auto found = std::find(kIsaNames.begin(), kIsaNames.end(), name);
  return found == kIsaNames.end() ? -1 : std::int32_t(found - kIsaNames.begin());
}
std::string_view kernel_name(std::int32_t kernel) { return name_of_value(kKernelNames, kernel); }
std::string_view a_source_name(std::int32_t a_source) { return name_of_value(kASourceNames, a_source); }
std::string_view grid_name(std::int32_t grid) { return name_of_value(kGridNames, grid); }
std::string_view split_reduce_name(std::int32_t split_reduce) { return name_of_value(kSplitReduceNames, split_reduce); }

std::string KernelConfig::to_string() const {
  std::string out;
  for (const Field& field : kFields) {
    const std::int32_t value = this->*field.member;
    if (value == 0) continue;
    if (!out.empty()) out += ' ';
    out += field.name;
    out += '=';
    out += field.value_names.empty() ? std::to_string(value) : std::string(name_of_value(field.value_names, value));
  }
  return out.empty() ? "-" : out;
}

std::vector<std::pair<std::string_view, std::int32_t>> KernelConfig::fields() const {
  std::vector<std::pair<std::string_view, std::int32_t>> out;
  out.reserve(kFields.size());
  for (const Field& field : kFields) out.emplace_back(field.name, this->*field.member);
  return out;
}

std::vector<std::string_view> KernelConfig::field_names() {
  std::vector<std::string_view> names;
  for (const Field& field : kFields) names.push_back(field.name);
  return names;
}

Result<KernelConfig> KernelConfig::parse(std::string_view text) {
  KernelConfig config;
  if (text == "-" || text.empty()) return config;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find(' ', pos);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view item = text.substr(pos, end - pos);
    pos = end + 1;
    if (item.empty()) continue;
    const std::size_t eq = item.find('=');
    if (eq == std::string_view::npos) {
      return Status(ErrorCode::corrupt_data, "config item '" + std::string(item) + "' has no '='");
    }
    const std::string_view name = item.substr(0, eq);
    const std::string_view value_text = item.substr(eq + 1);
    const Field* field = nullptr;
    for (const Field& candidate : kFields) {
      if (candidate.name == name) field = &candidate;
    }
    if (field == nullptr) {
      return Status(ErrorCode::corrupt_data, "unknown config field '" + std::string(name) + "'");
    }
    std::int32_t value = -1;
    if (!field->value_names.empty()) {
      for (std::size_t i = 0; i < field->value_names.size(); ++i) {
        if (field->value_names[i] == value_text) value = std::int32_t(i);
      }
      for (const ValueAlias& alias : field->aliases) {
        if (alias.name == value_text) value = alias.value;
      }
    } else {
      auto [ptr, ec] = std::from_chars(value_text.data(), value_text.data() + value_text.size(), value);
      if (ec != std::errc() || ptr != value_text.data() + value_text.size()) value = -1;
    }
    if (value < 0) {
      return Status(ErrorCode::corrupt_data, "config field '" + std::string(name) +
                                                 "' has a bad value '" + std::string(value_text) + "'");
    }
    config.*field->member = value;
  }
  return config;
}

}  // namespace gemmtune
