// The drop-in's one gemmtune session for the whole process, and its counters.
#pragma once

#include <atomic>
#include <string_view>

#include "gemmtune/session.h"
#include "gemmtune/status.h"

namespace gemmtune::blas {

// GEMMTUNE_BLAS_TUNING: how the drop-in tunes a shape it meets first. "fast" (the default):
// the exhaustive space, the cost model's top k timed (`gemmtune tune --fast`: the model's k);
// "default": the default space timed in full; "exhaustive": the exhaustive space timed in full;
// "light": the default space, each choice verified and timed by one short sample.
// The store is the session's usual one (GEMMTUNE_CACHE, ~/.cache/gemmtune by default), so a
// shape is tuned once per machine, not once per process.
Result<SessionOptions> blas_session_options(std::string_view tuning);

// The session, made on first use from the environment; null when it cannot be made (the
// reason is printed once on stderr, and callers fall back to OpenBLAS).
Session* blas_session();

struct Counters {
  std::atomic<unsigned long long> calls{0}, served{0}, quick_returns{0}, scaled{0}, errors{0}, fallbacks{0};
};
Counters& counters();

}  // namespace gemmtune::blas
