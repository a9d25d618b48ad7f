// The in-use check of a benchmark route (GemmOpOptions::revisit_after_calls): the first calls
// of a routed shape are timed as the program makes them, and the route is revisited only when
// its sub-kernel ran slower in use than any rival did when the route was decided.
//
// Timing a call costs two clock reads (tens of ns) and only the watched calls pay them. A route
// decided on one disturbed reading shows it in use, where the program's own calls time it for
// free; a route that holds is left alone instead of timing every sub-kernel again.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>

namespace gemmtune {

class InUseWatch {
 public:
  // calls: how many calls are timed before the check (>= 1); at most kSlots of them are kept.
  explicit InUseWatch(std::int64_t calls);

  // Records one call's time; `call` is the call's index (0-based) among the watched ones.
  void record(std::int64_t call, std::chrono::steady_clock::duration took);

  // The median (us) of the calls recorded so far; 0 when none finished yet.
  double median_us() const;

  // Whether calls that took `in_use_us` (a median) ran slower than a rival's fastest round,
  // `rival_us`, when the route was decided, beyond the tuner's noise band. An unknown rival
  // (rival_us <= 0: a record written before the time was stored) counts as slower, so the
  // route is revisited as before the check existed.
  static bool slower_than_rival(double in_use_us, double rival_us, double noise_band);

  static constexpr std::int64_t kSlots = 64;

 private:
  std::int64_t slots_;
  std::unique_ptr<std::atomic<std::int64_t>[]> ns_;  // 0: not recorded (yet)
};

}  // namespace gemmtune
