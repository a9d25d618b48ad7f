#include "gemmtune/timing.h"

#include <dirent.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "invariant.h"

namespace gemmtune {
namespace {

using Clock = std::chrono::steady_clock;

// Calls per sample are capped so a sub-nanosecond mistake cannot loop for ever.
constexpr std::int64_t kMaxCallsPerSample = std::int64_t(1) << 24;
// Untimed time of a candidate after a quiet wait, before its sample.
constexpr double kSettleUs = 200;

// Runs `call` `count` times; the elapsed time in microseconds, or the first error.
Result<double> run_batch(const std::function<Status()>& call, std::int64_t count) {
  const auto start = Clock::now();
  for (std::int64_t i = 0; i < count; ++i) {
    Status status = call();
    if (!status.is_ok()) return status;
  }
  return std::chrono::duration<double, std::micro>(Clock::now() - start).count();
}

// Whether a thread of this process other than the caller is running or waiting for a core
// (state R in /proc): a spinning thread is; one asleep on a futex is not.
bool other_thread_running() {
  const pid_t self = pid_t(syscall(SYS_gettid));
  DIR* tasks = opendir("/proc/self/task");
  if (tasks == nullptr) return false;
  bool running = false;
  while (const dirent* entry = readdir(tasks)) {
    if (entry->d_name[0] == '.' || std::atoi(entry->d_name) == self) continue;
    char path[sizeof "/proc/self/task//stat" + sizeof entry->d_name];  // any name fits
    std::snprintf(path, sizeof path, "/proc/self/task/%s/stat", entry->d_name);
    FILE* stat = std::fopen(path, "r");
    if (stat == nullptr) continue;  // the thread ended
    char text[256];
    const std::size_t length = std::fread(text, 1, sizeof text - 1, stat);
    std::fclose(stat);
    text[length] = '\0';
    // "tid (name) S ...": the state follows the last ')', as the name may hold one.
    const char* close = std::strrchr(text, ')');
    if (close != nullptr && close[1] == ' ' && close[2] == 'R') {
      running = true;
      break;
    }
  }
  closedir(tasks);
  return running;
}

}  // namespace

bool wait_until_process_quiet(double max_ms) {
  const auto deadline = Clock::now() + std::chrono::duration<double, std::milli>(max_ms);
  // Checked without sleeping first: when nothing spins, as between two of our own kernels,
  // the wait costs a look at /proc and leaves the core warm.
  while (other_thread_running()) {
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
  return true;
}

std::vector<double> ratios_by_round(const std::vector<double>& times, const std::vector<double>& anchor) {
  const std::size_t paired = std::min(times.size(), anchor.size());
  std::vector<double> ratios;
  for (std::size_t s = 0; s < paired; ++s) {
    if (anchor[s] > 0) ratios.push_back(times[s] / anchor[s]);
  }
  return ratios;
}

double median_ratio_by_round(const std::vector<double>& times, const std::vector<double>& anchor) {
  const std::vector<double> ratios = ratios_by_round(times, anchor);
  return ratios.empty() ? median_of(times) / median_of(anchor) : median_of(ratios);
}

double median_of(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const std::size_t mid = values.size() / 2;
  return values.size() % 2 ? values[mid] : 0.5 * (values[mid - 1] + values[mid]);
}

TimingStats summarize_samples(const std::vector<double>& per_call_us, std::int64_t calls) {
  GEMMTUNE_ASSERT(calls >= 1, "a sample times at least one call: its per-call times divide by the count");
  TimingStats stats;
  stats.calls_per_sample = calls;
  stats.sample_us = per_call_us;
  double median = median_of(per_call_us);
  std::vector<double> deviations;
  for (double v : per_call_us) deviations.push_back(std::fabs(v - median));
  double mad = median_of(deviations);
  // Drop samples beyond 3 scaled MADs (1.4826·MAD estimates σ for normal noise); preemption
  // and interrupts only ever make a sample slower.
  std::vector<double> kept;
  for (double v : per_call_us) {
    if (mad == 0 || std::fabs(v - median) <= 3 * 1.4826 * mad) kept.push_back(v);
  }
  if (kept.size() != per_call_us.size() && !kept.empty()) {
    median = median_of(kept);
    deviations.clear();
    for (double v : kept) deviations.push_back(std::fabs(v - median));
    mad = median_of(deviations);
  }
  stats.median_us = median;
  stats.mad_us = mad;
  stats.samples = int(kept.size());
  return stats;
}

std::size_t interleaved_candidate(int round, std::size_t position, std::size_t count) {
  if (count <= 1) return 0;
  // The first row: 0, 1, count - 1, 2, count - 2, … Each later row adds one to every entry;
  // for an odd count the second `count` rows are the first ones reversed, since no single
  // square of an odd order is balanced.
  const std::size_t period = count % 2 == 0 ? count : 2 * count;
  const std::size_t row = std::size_t(round < 0 ? 0 : round) % period;
  const std::size_t j = row < count ? position : count - 1 - position;
  const std::size_t first = j == 0 ? 0 : j % 2 == 1 ? (j + 1) / 2 : count - j / 2;
  return (first + row) % count;
}

std::vector<Result<TimingStats>> time_interleaved(const std::vector<std::function<Status()>>& calls,
                                                  const TimingOptions& options) {
  const std::size_t count = calls.size();
  std::vector<Status> failed(count);
  std::vector<std::int64_t> calls_per_sample(count, 1);
  std::vector<double> calibration_us(count, -1);
  const double min_sample_us = std::max(0.0, options.min_sample_ms) * 1000.0;

  // Warm up, then find how many calls fill one sample by doubling a timed batch.
  for (std::size_t i = 0; i < count; ++i) {
    auto warm = run_batch(calls[i], std::max(0, options.warmup_runs));
    if (!warm.is_ok()) {
      failed[i] = warm.status();
      continue;
    }
    std::int64_t batch = 1;
    while (true) {
      auto elapsed = run_batch(calls[i], batch);
      if (!elapsed.is_ok()) {
        failed[i] = elapsed.status();
        break;
      }
      if (*elapsed >= min_sample_us / 4 || batch >= kMaxCallsPerSample) {
        // One slow call in this batch (a preemption, a page fault) would size every sample of
        // the candidate too short, for good: the batch runs once more and the faster counts.
        auto again = run_batch(calls[i], batch);
        if (!again.is_ok()) {
          failed[i] = again.status();
          break;
        }
        const double per_call = std::max(std::min(*elapsed, *again) / double(batch), 1e-3);
        calibration_us[i] = per_call;
        calls_per_sample[i] = std::clamp<std::int64_t>(std::int64_t(std::ceil(min_sample_us / per_call)), 1,
                                                       kMaxCallsPerSample);
        break;
      }
      batch *= 2;
    }
  }

  std::vector<std::vector<double>> samples(count);
  std::size_t timed_last = count;
  for (int s = 0; s < std::max(1, options.samples); ++s) {
    // Balanced rounds (interleaved_candidate): in bench runs the first candidate is gemmtune,
    // and in one fixed order three shapes of one run read it 15-20% slower than its own kernel
    // timed second.
    for (std::size_t j = 0; j < count; ++j) {
      const std::size_t i = interleaved_candidate(s, j, count);
      if (!failed[i].is_ok()) continue;
      if (timed_last != i && options.quiet_wait_ms > 0) {
        wait_until_process_quiet(options.quiet_wait_ms);
        // Untimed calls for ~kSettleUs (at least one): the worker threads the wait let fall
        // asleep, whose cores a VM may have halted, are awake and spinning again.
        const std::int64_t settle =
            std::clamp<std::int64_t>(calls_per_sample[i] * kSettleUs / std::max(min_sample_us, 1.0), 1, calls_per_sample[i]);
        if (Status warm = run_batch(calls[i], settle).status(); !warm.is_ok()) {
          failed[i] = warm;
          continue;
        }
      }
      timed_last = i;
      auto elapsed = run_batch(calls[i], calls_per_sample[i]);
      if (!elapsed.is_ok()) {
        failed[i] = elapsed.status();
        continue;
      }
      samples[i].push_back(*elapsed / double(calls_per_sample[i]));
    }
  }

  std::vector<Result<TimingStats>> results;
  for (std::size_t i = 0; i < count; ++i) {
    if (!failed[i].is_ok()) {
      results.emplace_back(failed[i]);
    } else {
      TimingStats stats = summarize_samples(samples[i], calls_per_sample[i]);
      stats.calibration_us = calibration_us[i];
      results.emplace_back(std::move(stats));
    }
  }
  return results;
}

}  // namespace gemmtune
