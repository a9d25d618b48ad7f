// The one way gemmtune times code: the autotuner, `gemmtune bench` and bench/ all use it
// (shared/benchmarking.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "gemmtune/status.h"

namespace gemmtune {

struct TimingOptions {
  // Each sample repeats the call until at least this long has passed, so that clock resolution
  // and call overhead vanish into the mean of one sample.
  double min_sample_ms = 2.0;
  // Samples per candidate; the median of them is reported.
  int samples = 7;
  // Untimed calls first: page faults, lazy initialisation and cold caches stay out of the numbers.
  int warmup_runs = 2;
  // Before each sample of a candidate other than the one timed last, wait (at most this long)
  // until no other thread of the process is running. A library's threads keep spinning after
  // its call returns (libgomp, under oneDNN, for some 6 ms): on a machine of few cores they
  // would take a core from whichever candidate is timed next. 0: do not wait.
  double quiet_wait_ms = 20;
};

struct TimingStats {
  double median_us = 0;  // per call
  double mad_us = 0;     // median absolute deviation of the per-call sample means
  int samples = 0;       // samples kept after outlier rejection
  std::int64_t calls_per_sample = 0;
  // Every sample's per-call mean in the order taken, outliers included: with candidates timed
  // in interleaved rounds, entry s of each is round s, so they can be compared round by round.
  std::vector<double> sample_us;
  // Per call, from the calls that sized the samples (taken right after the warm-up, before the
  // interleaved rounds); -1 where the timing has no such run. A second reading, taken at
  // another moment than the samples.
  double calibration_us = -1;
};

// The median (of an even count, the mean of the middle two); 0 of none.
double median_of(std::vector<double> values);

// times[s] / anchor[s] for each round s of two candidates timed interleaved (TimingStats::
// sample_us): what the machine did during a round (a neighbour, a frequency step) is in both
// times and cancels from their ratio. Rounds of unequal counts (a sample lost) are paired as
// far as both go; a round whose anchor is not positive is left out.
std::vector<double> ratios_by_round(const std::vector<double>& times, const std::vector<double>& anchor);

// The median of ratios_by_round (times over anchor); the ratio of the medians where no round
// pairs. How gemmtune reads one candidate against another of the same run: the tuner's final
// round, and every ratio of `gemmtune bench` and `hints-table`. On the 2-core VM one kernel
// timed as two candidates read 0.69-1.09 of itself as a ratio of medians and 0.96-1.06 this
// way over 60 runs of 7 rounds (bench/results/2026-11-29f-cpu-aa-noise.md).
double median_ratio_by_round(const std::vector<double>& times, const std::vector<double>& anchor);

// Median and MAD of per-call sample means, after dropping samples further than
// 3 × 1.4826 × MAD from the median. Every timer of gemmtune reduces its samples with this.
TimingStats summarize_samples(const std::vector<double>& per_call_us, std::int64_t calls_per_sample);

// Waits, at most max_ms, until no other thread of the process is running (none in state R in
// /proc/self/task). True if none was at the end.
bool wait_until_process_quiet(double max_ms);

// The candidate timed at `position` of round `round` when `count` are interleaved. The rounds
// follow a Williams design (A B D C, B C A D, C D B A, D A C B for four; an odd count adds the
// same rounds reversed): over `count` rounds (2·count for an odd count) each candidate is timed
// at each position equally often and right after each other candidate equally often. Whatever
// a candidate leaves behind (its library's threads winding down, its code and data in cache)
// and whatever happens at the turn of a round thus fall on every candidate alike. Rounds that
// only rotated their start (A B C, B C A, …) kept each candidate behind the same one, and on
// one day the bench's first candidate read up to 6 % slower than the same kernel timed second
// (bench/results/2026-11-24d-cpu-harness-order/). Every interleaving timer of gemmtune uses
// this order.
std::size_t interleaved_candidate(int round, std::size_t position, std::size_t count);

// Times each callable. Samples are interleaved, one of each per round in interleaved_candidate's
// order, so that drift of the machine during the measurement cancels in the ratios between
// candidates. Samples further than 3 × 1.4826 × MAD from the median are dropped as outliers.
// A callable that returns an error stops being timed and gets that error.
std::vector<Result<TimingStats>> time_interleaved(const std::vector<std::function<Status()>>& calls,
                                                  const TimingOptions& options);

}  // namespace gemmtune
