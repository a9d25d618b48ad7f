#include "warnings.h"

#include <cstdio>
#include <mutex>
#include <set>

namespace gemmtune {

void warn_once(const std::string& message) {
  static std::mutex mutex;
  static std::set<std::string> said;
  std::lock_guard lock(mutex);
  if (!said.insert(message).second) return;
  std::fprintf(stderr, "gemmtune: warning: %s\n", message.c_str());
}

}  // namespace gemmtune
