#include "in_use_watch.h"

#include <algorithm>
#include <vector>

#include "gemmtune/timing.h"

namespace gemmtune {

InUseWatch::InUseWatch(std::int64_t calls)
    : slots_(std::clamp<std::int64_t>(calls, 1, kSlots)), ns_(new std::atomic<std::int64_t>[std::size_t(slots_)]) {
  for (std::int64_t s = 0; s < slots_; ++s) ns_[std::size_t(s)].store(0, std::memory_order_relaxed);
}

void InUseWatch::record(std::int64_t call, std::chrono::steady_clock::duration took) {
  // A call faster than the clock's tick still ran: it counts as 1 ns, not as unrecorded.
  const std::int64_t ns = std::max<std::int64_t>(1, std::chrono::duration_cast<std::chrono::nanoseconds>(took).count());
  ns_[std::size_t(call % slots_)].store(ns, std::memory_order_relaxed);
}

double InUseWatch::median_us() const {
  std::vector<double> us;
  for (std::int64_t s = 0; s < slots_; ++s) {
    // Another thread's call may still be running when the check reads: its slot is skipped.
    if (const std::int64_t ns = ns_[std::size_t(s)].load(std::memory_order_relaxed); ns > 0) us.push_back(double(ns) * 1e-3);
  }
  return us.empty() ? 0.0 : median_of(std::move(us));
}

bool InUseWatch::slower_than_rival(double in_use_us, double rival_us, double noise_band) {
  if (rival_us <= 0 || in_use_us <= 0) return true;
  return in_use_us > rival_us * (1.0 + noise_band);
}

}  // namespace gemmtune
