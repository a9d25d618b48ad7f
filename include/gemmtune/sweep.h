// Sweeps: every config of a search space measured on a set of shapes, the data the cost model
// is trained and evaluated on (docs/lut-and-model.md). A sweep is a CSV file: comment lines
// with what it was measured on, a header, one row per (shape, config), and a "# done" line
// after each shape's rows, so that an interrupted sweep resumes after its last whole shape.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "gemmtune/config.h"
#include "gemmtune/problem.h"
#include "gemmtune/status.h"
#include "gemmtune/timing.h"
#include "gemmtune/tune_report.h"

namespace gemmtune {

// One config of one shape, measured on its own: its fate, its time and what measuring it cost.
struct ConfigMeasurement {
  std::string backend;
  KernelConfig config;
  ChoiceStatus status = ChoiceStatus::skipped;  // pruned is not used: every ok config has a time
  std::string reason;
  double time_us = -1;      // median of the full timing, or the short sample when not timed in full
  double mad_us = 0;
  bool full = false;        // time_us comes from the full timing
  double quick_us = -1;     // the short sample's time
  // Wall time of each step, in microseconds: what tuning this config costs.
  double prepare_us = 0;     // can_implement and prepare (compiling, for JIT backends)
  double verify_us = 0;      // one run checked against the reference
  double quick_cost_us = 0;  // the short sample
  double full_cost_us = 0;   // the full timing (0 when not timed in full)
};

struct ShapeMeasurement {
  double setup_us = 0;  // operands allocated and filled, reference computed: paid once per tuning
  std::vector<ConfigMeasurement> configs;
};

// What a sweep file says about where it was measured.
struct SweepMeta {
  std::string device;        // DeviceInfo::fingerprint()
  std::string device_class;  // DeviceInfo::device_class()
  std::map<std::string, std::string> backend_versions;
  std::string search;        // "exhaustive" or "default"
  // At most this many configs of each backend per shape, a random sample of the space
  // (SweepOptions::configs_per_backend); 0: every config.
  int configs_per_backend = 0;
  TimingOptions timing;
  double prune_factor = 1.5;  // the autotuner's, which the tuning-time simulation follows
  int finalists = 3;          // the autotuner's final round (TuneOptions::finalists), likewise
  double close_band = 0.03;   // and its close finish (TuneOptions::close_band, close_repeats)
  int close_repeats = 2;
  double full_within = 3.0;
  int workers = 1;            // threads the autotuner prepares choices on, on that machine
  bool operator==(const SweepMeta& other) const {
    return device == other.device && device_class == other.device_class &&
           backend_versions == other.backend_versions && search == other.search &&
           configs_per_backend == other.configs_per_backend &&
           timing.samples == other.timing.samples && timing.min_sample_ms == other.timing.min_sample_ms &&
           timing.warmup_runs == other.timing.warmup_runs && prune_factor == other.prune_factor &&
           finalists == other.finalists && close_band == other.close_band &&
           close_repeats == other.close_repeats &&
           full_within == other.full_within && workers == other.workers;
  }
};

struct SweepRow {
  ProblemKey problem;
  ConfigMeasurement measured;
  double setup_us = 0;  // the shape's
};

struct SweepData {
  SweepMeta meta;
  std::vector<SweepRow> rows;
  // Bytes of the file up to the end of its last whole shape (its "# done" line): an
  // interrupted sweep is cut back to here and goes on.
  std::uint64_t complete_bytes = 0;
  // Problem keys of the whole shapes, in file order.
  std::vector<std::string> shapes;
};

inline constexpr const char* kSweepFormat = "gemmtune-sweep 1";

// The comment lines and the header that start a sweep file.
std::string sweep_csv_header(const SweepMeta& meta);
// One shape's rows followed by its "# done" line.
std::string sweep_csv_rows(const ProblemKey& problem, const ShapeMeasurement& shape);
// Reads a sweep file. Rows after the last "# done" line (an interrupted shape) are left out.
// Anything malformed is corrupt_data naming the file and line.
Result<SweepData> parse_sweep_csv(const std::string& text, const std::string& name);
Result<SweepData> read_sweep_csv(const std::string& path);
// Several sweep files as one: they must agree on their meta data (device, backend versions,
// timing), else invalid_argument naming the file that differs.
Result<SweepData> read_sweep_csvs(const std::vector<std::string>& paths);

}  // namespace gemmtune
