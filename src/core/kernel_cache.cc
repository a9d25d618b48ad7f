#include "gemmtune/kernel_cache.h"

#include <cstdlib>
#include <string_view>

namespace gemmtune {

std::vector<std::string> kernel_cache_dirs() {
  std::vector<std::string> dirs;
  if (const char* list = std::getenv("GEMMTUNE_CUBIN_CACHE"); list != nullptr && list[0] != '\0') {
    std::string_view rest(list);
    while (!rest.empty()) {
      const std::size_t colon = rest.find(':');
      if (const std::string_view dir = rest.substr(0, colon); !dir.empty()) dirs.emplace_back(dir);
      rest = colon == std::string_view::npos ? std::string_view() : rest.substr(colon + 1);
    }
    if (!dirs.empty()) return dirs;
  }
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && xdg[0] != '\0') {
    return {std::string(xdg) + "/gemmtune/cubins"};
  }
  if (const char* home = std::getenv("HOME"); home != nullptr && home[0] != '\0') {
    return {std::string(home) + "/.cache/gemmtune/cubins"};
  }
  return {};
}

}  // namespace gemmtune
