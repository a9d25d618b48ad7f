// Runtime checks of what the code relies on and no input can break. GEMMTUNE_ASSERT runs in
// every build: for cheap checks whose failure would go on to corrupt results or memory.
// GEMMTUNE_DASSERT runs where NDEBUG is off (debug builds): for checks in hot paths. A broken
// invariant is a bug in gemmtune, so it prints the condition, why it must hold and where, and
// aborts; bad input is never checked this way (it gets a Status naming what is wrong).
#pragma once

namespace gemmtune {

[[noreturn]] void invariant_failed(const char* condition, const char* why, const char* file, int line);

}  // namespace gemmtune

#define GEMMTUNE_ASSERT(condition, why) \
  ((condition) ? (void)0 : ::gemmtune::invariant_failed(#condition, why, __FILE__, __LINE__))
#ifdef NDEBUG
#define GEMMTUNE_DASSERT(condition, why) ((void)0)
#else
#define GEMMTUNE_DASSERT(condition, why) GEMMTUNE_ASSERT(condition, why)
#endif
