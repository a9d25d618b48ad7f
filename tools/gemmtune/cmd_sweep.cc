// gemmtune sweep: every config of a search space measured on a set of shapes, written as a
// CSV that the cost model is trained and evaluated on (docs/lut-and-model.md).
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>

#include "commands.h"
#include "common.h"
#include "ranks.h"
#include "shapes.h"

namespace gemmtune::cli {
namespace {

// EX_TEMPFAIL: stopped by --max-minutes with shapes left; the same command resumes.
constexpr int kExitResume = 75;
// --out holds a sweep measured elsewhere or otherwise (other kernel versions, say).
constexpr int kExitOtherSweep = 3;

constexpr const char* kSweepSummary =
    "Measures every config of the search space (--space, default exhaustive) on each shape, or a\n"
    "random sample of each backend's (--configs-per-backend): prepared over the cores as in tuning,\n"
    "then each on its own: verified, one short sample, then the full timing of those within\n"
    "--full-within of the fastest. One CSV row per (shape, config) with its\n"
    "time and what measuring it cost. Progress goes to stderr. An existing --out file of the same\n"
    "device and settings is resumed: its whole shapes are kept and skipped, a shape cut off is redone;\n"
    "one measured on another device, with other backend versions or settings is refused (exit 3).\n"
    "Started by mpirun, the ranks share the shapes out (shape i to rank i mod ranks), each on its own\n"
    "device, into a file of its own: --out sweep.csv becomes sweep.rank0-of-4.csv ... sweep.rank3-of-4.csv,\n"
    "which `gemmtune model train --data` takes together (ranks on machines of one fingerprint).";

std::vector<OptionSpec> sweep_specs() {
  std::vector<OptionSpec> specs = shape_options();
  specs.push_back({"space", true, "--space S              config space measured: exhaustive (default) | default"});
  specs.push_back({"out", true, "--out FILE.csv         where the rows go (required); resumed when it exists"});
  specs.push_back({"configs-per-backend", true,
                   "--configs-per-backend N  at most N configs of each backend per shape, drawn at random\n"
                   "                       (the same ones on every run); default: every config"});
  specs.push_back({"max-shapes", true, "--max-shapes N         only the first N shapes of the set"});
  specs.push_back({"max-minutes", true, "--max-minutes T        stop at the first shape that starts past T minutes, with exit\n"
                                        "                       status 75 when shapes are left (the same command resumes)"});
  specs.push_back({"full-within", true, "--full-within F        time in full the configs within F x the fastest short\n"
                                        "                       sample (default 3; the autotuner prunes at 1.5)"});
  for (const char* name : {"device", "backends", "samples", "min-sample-ms"}) {
    for (const OptionSpec& spec : session_options()) {
      if (spec.name == name) specs.push_back(spec);
    }
  }
  specs.push_back(shared_device_option());
  return specs;
}

// A rank's own file: "sweep.csv" -> "sweep.rank1-of-4.csv"; the path itself when alone.
std::string rank_path(const std::string& path, const Ranks& ranks) {
  if (ranks.size() == 1) return path;
  const std::filesystem::path p(path);
  const std::string tag = ".rank" + std::to_string(ranks.rank()) + "-of-" + std::to_string(ranks.size());
  return (p.parent_path() / (p.stem().string() + tag + p.extension().string())).string();
}

std::string minutes(double seconds) {
  char out[32];
  std::snprintf(out, sizeof out, "%d:%02d", int(seconds) / 60, int(seconds) % 60);
  return out;
}

// The existing file cut back to its whole shapes, or a fresh file with the header; the keys of
// the shapes already done.
Result<std::set<std::string>> open_out(const std::string& path, const SweepMeta& meta) {
  std::error_code ec;
  if (std::filesystem::exists(path, ec) && std::filesystem::file_size(path, ec) > 0) {
    GEMMTUNE_ASSIGN_OR_RETURN(SweepData existing, read_sweep_csv(path));
    if (!(existing.meta == meta)) {
      return unsupported(path + " holds a sweep of another device, other backend versions or other settings (its "
                         "'# meta:' line differs); give another --out or move it aside");
    }
    std::filesystem::resize_file(path, existing.complete_bytes, ec);
    if (ec) return Status(ErrorCode::io_error, "cannot cut " + path + " back to its whole shapes: " + ec.message());
    return std::set<std::string>(existing.shapes.begin(), existing.shapes.end());
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << sweep_csv_header(meta);
  if (!out.good()) return Status(ErrorCode::io_error, "cannot write " + path);
  return std::set<std::string>{};
}

// Appends one shape's rows in a single write, flushed to disk: a sweep killed here leaves either
// the whole shape or a part without its "# done" line, which a resume drops.
Status append(const std::string& path, const std::string& text) {
  std::FILE* file = std::fopen(path.c_str(), "ab");
  if (file == nullptr) return Status(ErrorCode::io_error, "cannot append to " + path);
  const bool written = std::fwrite(text.data(), 1, text.size(), file) == text.size() && std::fflush(file) == 0 &&
                       ::fsync(fileno(file)) == 0;
  std::fclose(file);
  return written ? Status::ok() : Status(ErrorCode::io_error, "cannot append to " + path);
}

}  // namespace

int run_sweep(int argc, char** argv) {
  const std::vector<OptionSpec> specs = sweep_specs();
  // Under mpirun every rank sweeps its share into its own file. The ranks meet nowhere else (a
  // rank that fails exits, and mpirun ends the job; each file resumes where it stopped).
  auto ranks = Ranks::join();
  if (!ranks.is_ok()) return fail(ranks.status());
  if (asks_for_help(argc, argv)) {
    if ((*ranks)->rank() == 0) std::cout << usage("sweep", kSweepSummary, specs);
    return kExitOk;
  }
  auto args = Args::parse("sweep", specs, argc, argv, 2);
  if (!args.is_ok()) return fail(args.status());
  if (!args->has("out")) return fail(invalid_argument("--out FILE.csv is required"));
  const std::string out_path = rank_path(args->get("out", ""), **ranks);
  auto options = session_options_from(*args);
  if (!options.is_ok()) return fail(options.status());
  auto device = device_for_rank(options->device, **ranks, args->flag("shared-device"));
  if (!device.is_ok()) return fail(device.status());
  options->device = *device;
  SweepOptions sweep;
  auto space = parse_search_space(args->get("space", "exhaustive"));
  if (!space.is_ok()) return fail(invalid_argument("--space: " + space.status().message()));
  sweep.search = *space;
  sweep.backends = options->tuning.backends;
  sweep.timing = options->tuning.timing;
  auto full_within = args->get_double("full-within", sweep.full_within);
  if (!full_within.is_ok()) return fail(full_within.status());
  if (*full_within < options->tuning.prune_factor) {
    return fail(invalid_argument("--full-within must be at least the autotuner's prune factor (" +
                                 std::to_string(options->tuning.prune_factor) + ")"));
  }
  sweep.full_within = *full_within;
  auto per_backend = args->get_int("configs-per-backend", 0, 1, 1 << 20);
  if (!per_backend.is_ok()) return fail(per_backend.status());
  sweep.configs_per_backend = std::size_t(*per_backend);
  auto max_shapes = args->get_int("max-shapes", INT64_MAX, 1);
  if (!max_shapes.is_ok()) return fail(max_shapes.status());
  auto max_minutes = args->get_double("max-minutes", 0);
  if (!max_minutes.is_ok()) return fail(max_minutes.status());

  // The sweep is the measurement: nothing is read from or written to the tuning store.
  options->store.mode = StoreMode::off;
  auto session = Session::create(*options);
  if (!session.is_ok()) return fail(session.status());
  auto shapes = shapes_from(*args, (*session)->device().kind == DeviceKind::cuda);
  if (!shapes.is_ok()) return fail(shapes.status());
  if (std::int64_t(shapes->problems.size()) > *max_shapes) {
    shapes->problems.erase(shapes->problems.begin() + *max_shapes, shapes->problems.end());
  }
  if ((*ranks)->size() > 1) {
    std::vector<Problem> share;
    for (std::size_t i = 0; i < shapes->problems.size(); ++i) {
      if ((*ranks)->owns(i)) share.push_back(shapes->problems[i]);
    }
    std::fprintf(stderr, "rank %d of %d (host %s, %s): %zu of the %zu shapes into %s\n", (*ranks)->rank(),
                 (*ranks)->size(), (*ranks)->host().c_str(), (*session)->device().name.c_str(), share.size(),
                 shapes->problems.size(), out_path.c_str());
    shapes->problems = std::move(share);
  }

  SweepMeta meta;
  meta.device = (*session)->device().fingerprint();
  meta.device_class = (*session)->device().device_class();
  meta.backend_versions = (*session)->backend_versions();
  meta.search = args->get("space", "exhaustive");
  meta.configs_per_backend = int(sweep.configs_per_backend);
  meta.timing = sweep.timing;
  meta.prune_factor = options->tuning.prune_factor;
  meta.finalists = options->tuning.finalists;
  meta.close_band = options->tuning.close_band;
  meta.close_repeats = options->tuning.close_repeats;
  meta.full_within = sweep.full_within;
  meta.workers = gemmtune::host_cpu().logical_cores;
  auto done = open_out(out_path, meta);
  if (!done.is_ok()) {
    const int code = fail(done.status());
    return done.status().code() == ErrorCode::unsupported ? kExitOtherSweep : code;
  }

  const auto start = std::chrono::steady_clock::now();
  auto elapsed_s = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  std::size_t measured = 0, skipped = 0, left = 0;
  for (const Problem& problem : shapes->problems) left += done->count(ProblemKey::of(problem).to_string()) ? 0 : 1;
  const std::size_t total = shapes->problems.size();
  for (std::size_t i = 0; i < total; ++i) {
    const Problem& problem = shapes->problems[i];
    const ProblemKey key = ProblemKey::of(problem);
    if (done->count(key.to_string())) {
      ++skipped;
      continue;
    }
    if (*max_minutes > 0 && elapsed_s() > *max_minutes * 60) {
      std::fprintf(stderr, "stopping after %s (--max-minutes); %zu shapes left, run again to resume\n",
                   minutes(elapsed_s()).c_str(), left - measured);
      return kExitResume;
    }
    const auto shape_start = std::chrono::steady_clock::now();
    auto shape = (*session)->measure_configs(problem, sweep);
    if (!shape.is_ok()) return fail(Status(shape.status().code(), problem.describe() + ": " + shape.status().message()));
    if (Status written = append(out_path, sweep_csv_rows(key, *shape)); !written.is_ok()) return fail(written);
    done->insert(key.to_string());
    ++measured;
    int full = 0;
    const ConfigMeasurement* best = nullptr;
    for (const ConfigMeasurement& m : shape->configs) {
      full += m.full ? 1 : 0;
      if (m.status == ChoiceStatus::ok && m.full && (best == nullptr || m.time_us < best->time_us)) best = &m;
    }
    const double shape_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - shape_start).count();
    const double per_shape = elapsed_s() / double(measured);
    std::fprintf(stderr, "[%zu/%zu] %s: %zu configs, %d timed in full, fastest %s %s %.2f us (%.1f s; %s elapsed, ~%s left)\n",
                 i + 1, total, problem.describe().c_str(), shape->configs.size(), full,
                 best ? best->backend.c_str() : "-", best ? best->config.to_string().c_str() : "-",
                 best ? best->time_us : 0.0, shape_s, minutes(elapsed_s()).c_str(),
                 minutes(per_shape * double(left - measured)).c_str());
  }
  std::fprintf(stderr, "sweep %s: %zu shapes measured, %zu already there, in %s\n", out_path.c_str(), measured,
               skipped, minutes(elapsed_s()).c_str());
  return kExitOk;
}

}  // namespace gemmtune::cli
