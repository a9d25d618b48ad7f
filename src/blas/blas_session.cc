#include "blas_session.h"

#include <cstdio>
#include <cstdlib>
#include <string>

#include "blas_exports.h"

namespace gemmtune::blas {

Result<SessionOptions> blas_session_options(std::string_view tuning) {
  SessionOptions options;
  options.device = "cpu";
  if (tuning.empty() || tuning == "fast") {
    set_fast(options.tuning);
  } else if (tuning == "default") {
    options.tuning.search = SearchSpace::default_space;
  } else if (tuning == "exhaustive") {
    options.tuning.search = SearchSpace::exhaustive;
  } else if (tuning == "light") {
    // Every choice still verified against the reference; each timed by one short sample, with
    // no final round: a pick in a few milliseconds, for throwaway processes and the tests
    // (the reference testers meet a thousand shapes each).
    options.tuning.timing.samples = 1;
    options.tuning.timing.min_sample_ms = 0.05;
    options.tuning.timing.warmup_runs = 1;
    options.tuning.timing.quiet_wait_ms = 0;
    options.tuning.finalists = 0;
    options.tuning.prune_factor = 0;
  } else {
    return invalid_argument("GEMMTUNE_BLAS_TUNING is \"" + std::string(tuning) +
                            "\"; expected fast (the default), default, exhaustive or light");
  }
  return options;
}

namespace {

// Made once, never destroyed: a program may still call sgemm_ from its own exit handlers, and
// the session's worker threads must not be joined while the process tears itself down. Its
// tunings are in the store as soon as they are made.
Session* make_session() {
  const char* tuning = std::getenv("GEMMTUNE_BLAS_TUNING");
  auto options = blas_session_options(tuning == nullptr ? "" : tuning);
  Result<std::unique_ptr<Session>> session =
      options.is_ok() ? Session::create(std::move(options).value()) : Result<std::unique_ptr<Session>>(options.status());
  if (!session.is_ok()) {
    std::fprintf(stderr, "gemmtune BLAS: no gemmtune session (%s); sgemm runs on OpenBLAS\n",
                 session.status().to_string().c_str());
    return nullptr;
  }
  return std::move(session).value().release();
}

// GEMMTUNE_BLAS_STATS=1: what the drop-in did, on stderr when the program ends; the tests
// count from it how many calls of the reference testers reached gemmtune.
struct StatsAtExit {
  ~StatsAtExit() {
    const char* flag = std::getenv("GEMMTUNE_BLAS_STATS");
    if (flag == nullptr || std::string(flag) != "1") return;
    const Counters& c = counters();
    std::fprintf(stderr,
                 "gemmtune BLAS: %llu sgemm calls: %llu served by gemmtune, %llu quick returns, %llu scaled by "
                 "beta alone, %llu argument errors, %llu on OpenBLAS\n",
                 c.calls.load(), c.served.load(), c.quick_returns.load(), c.scaled.load(), c.errors.load(),
                 c.fallbacks.load());
  }
} stats_at_exit;

}  // namespace

Session* blas_session() {
  static Session* const session = make_session();
  return session;
}

// Constant-initialised and trivially destroyed: live for every call, even from exit handlers.
constinit Counters all_counters;
Counters& counters() { return all_counters; }

}  // namespace gemmtune::blas

GemmtuneBlasCounts gemmtune_blas_counts(void) {
  const gemmtune::blas::Counters& c = gemmtune::blas::counters();
  return {c.calls.load(), c.served.load(), c.quick_returns.load(), c.scaled.load(), c.errors.load(),
          c.fallbacks.load()};
}
