#include <cstdlib>
#include <memory>
namespace gemmtune::cpu {
void* thread_scratch(int slot, std::size_t bytes) {
  thread_local void* p[8]; thread_local std::size_t n[8];
  if (n[slot] < bytes) { std::free(p[slot]); std::size_t s = 4096; while (s < bytes) s *= 2; p[slot] = std::aligned_alloc(64, s); n[slot] = s; }
  return p[slot];
}
}
