// upgrade_config_text (gemmtune/config.h): configs stored before `algo` was split into the named
// `kernel` field and cuBLASLt's `rank`.
#include <charconv>
#include <string>

#include "gemmtune/config.h"

namespace gemmtune {
namespace {

// The field that `algo=value` of `backend` became, as "name=value", "" where it was the default
// (0: the family's main kernel), or nullopt-like "?" where the old value meant nothing.
std::string upgraded_item(std::string_view backend, std::int32_t value) {
  auto kernel = [](std::int32_t k) { return "kernel=" + std::string(kernel_name(k)); };
  if (backend == "cpu") {
    // Old 0 packed, 1 rows, 2 dot, 3 columns, 4 tile, 5 stream, 6 axpy, 7 pairs, 8 rows-dots:
    // today's values one past them (gemv took 1).
    if (value == 0) return "";
    if (value >= 1 && value <= 8) return kernel(value + 1);
    return "?";
  }
  if (backend == "onednn") return value == 0 ? "" : value == 1 ? kernel(kKernelSgemm) : "?";
  if (backend == "libxsmm") return value == 0 ? "" : value == 1 ? kernel(kKernelPerCall) : "?";
  if (backend == "mma" || backend == "cuda") {
    return value == 0 ? "" : value == 9001 ? kernel(kKernelFaultAddress) : value == 9002 ? kernel(kKernelFaultSpin) : "?";
  }
  // cuBLASLt, and any other backend: a plain variant number, today's rank.
  return value == 0 ? "" : "rank=" + std::to_string(value);
}

}  // namespace

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
