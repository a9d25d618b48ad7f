// upgrade_config_text (gemmtune/config.h) and legacy_algo_number (config_upgrade.h): configs
// stored before `algo` was split into the named `kernel` field and cuBLASLt's `rank`.
#include <charconv>
#include <string>

#include "config_upgrade.h"

namespace gemmtune {
namespace {

// What an old `algo` number named in the families where it named a kernel; everywhere else (0
// aside, each family's main kernel) it was cuBLASLt's rank or a plain variant number, today's
// `rank`. One table for both directions: upgrade_config_text and legacy_algo_number.
struct LegacyKernel {
  std::string_view backend;
  std::int32_t old_number;
  std::int32_t kernel;
};
constexpr LegacyKernel kLegacyKernels[] = {
    {"cpu", 1, kKernelRows},          {"cpu", 2, kKernelDot},         {"cpu", 3, kKernelColumns},
    {"cpu", 4, kKernelTile},          {"cpu", 5, kKernelStream},      {"cpu", 6, kKernelAxpy},
    {"cpu", 7, kKernelPairs},         {"cpu", 8, kKernelRowsDots},    {"onednn", 1, kKernelSgemm},
    {"libxsmm", 1, kKernelPerCall},   {"mma", 9001, kKernelFaultAddress}, {"mma", 9002, kKernelFaultSpin},
    {"cuda", 9001, kKernelFaultAddress}, {"cuda", 9002, kKernelFaultSpin},  // the mma family's old name
};

bool names_kernels(std::string_view backend) {
  for (const LegacyKernel& row : kLegacyKernels) {
    if (row.backend == backend) return true;
  }
  return false;
}

// The field that `algo=value` of `backend` became, as "name=value", "" where it was the default
// (0: the family's main kernel), or "?" where the old value meant nothing.
std::string upgraded_item(std::string_view backend, std::int32_t value) {
  if (value == 0) return "";
  for (const LegacyKernel& row : kLegacyKernels) {
    if (row.backend == backend && row.old_number == value) return "kernel=" + std::string(kernel_name(row.kernel));
  }
  return names_kernels(backend) ? "?" : "rank=" + std::to_string(value);
}

}  // namespace

std::int32_t legacy_algo_number(std::string_view backend, const KernelConfig& config) {
  for (const LegacyKernel& row : kLegacyKernels) {
    if (row.backend == backend && row.kernel == config.kernel) return row.old_number;
  }
  return config.rank;
}

std::string upgrade_config_text(std::string_view backend, std::string_view text) {
  std::string out;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t end = text.find(' ', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string item(text.substr(pos, end - pos));
    pos = end + 1;
    if (item.rfind("algo=", 0) == 0) {
      std::int32_t value = -1;
      const char* first = item.data() + 5;
      const char* last = item.data() + item.size();
      auto [ptr, ec] = std::from_chars(first, last, value);
      // A bad number stays as it was, so that parsing it names the field and the value.
      if (ec == std::errc() && ptr == last) {
        const std::string upgraded = upgraded_item(backend, value);
        if (upgraded != "?") item = upgraded;
      }
    }
    if (item.empty()) continue;
    if (!out.empty()) out += ' ';
    out += item;
  }
  // A config that was only `algo=0` is the default config.
  return out.empty() && !text.empty() ? "-" : out;
}

}  // namespace gemmtune
