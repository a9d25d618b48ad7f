#include "invariant.h"

#include <cstdio>
#include <cstdlib>

namespace gemmtune {

void invariant_failed(const char* condition, const char* why, const char* file, int line) {
  std::fprintf(stderr, "gemmtune: internal error at %s:%d: %s does not hold (%s)\n", file, line, condition, why);
  std::abort();
}

}  // namespace gemmtune
