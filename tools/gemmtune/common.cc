#include "common.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>

#include "gemmtune/report_json.h"
#include "gemmtune/timing.h"

namespace gemmtune::cli {

bool asks_for_help(int argc, char** argv) {
  for (int i = 2; i < argc; ++i) {
    if (std::string(argv[i]) == "--help") return true;
  }
  return false;
}

int exit_code(const Status& status) {
  if (status.is_ok()) return kExitOk;
  return status.code() == ErrorCode::invalid_argument || status.code() == ErrorCode::not_found ? kExitUsage
                                                                                                : kExitFailed;
}

int fail(const Status& status) {
  std::fprintf(stderr, "gemmtune: %s\n", status.message().c_str());
  return exit_code(status);
}

std::vector<OptionSpec> session_options() {
  std::vector<OptionSpec> specs = {
      {"device", true, "--device D             device to run on: cpu (default)"},
      {"search", true, "--search S             config space: default | exhaustive"},
      {"benchmark", true, "--benchmark B          which searched choices are timed: all (default) | top:K\n"
                          "                       (the K the cost model ranks fastest)"},
      {"fast", false, "--fast                 --search exhaustive --benchmark top:K, K fitted to the cost model\n"
                      "                       when it was trained (" + std::to_string(kFastTopK) + " for a model without one)"},
      {"lut", true, "--lut FILE             kernel lookup table (default: $GEMMTUNE_LUT)"},
      {"model", true, "--model FILE           cost model for --benchmark top:K (default: $GEMMTUNE_MODEL,\n"
                      "                       then the model shipped for this device in data/models)"},
      {"backends", true, "--backends A,B         only these backends (default: all)"},
      {"samples", true, "--samples N            timing samples per choice (default 7)"},
      {"min-sample-ms", true, "--min-sample-ms T      each sample runs at least T ms (default 2)"},
      {"verbose", false, "--verbose              print each AUTOTUNE table to stderr"},
  };
  for (OptionSpec& spec : store_options()) specs.push_back(spec);
  return specs;
}

std::vector<OptionSpec> store_options() {
  return {
      {"cache", true, "--cache PATH           tuning store file, or off (default: $GEMMTUNE_CACHE, then\n"
                      "                       $XDG_CACHE_HOME/gemmtune/tuning.sqlite)"},
      {"cache-mode", true, "--cache-mode M         rw | ro | off (default: $GEMMTUNE_CACHE_MODE, then rw)"},
      {"redis", true, "--redis URL            shared store redis://host:port/db behind the local one\n"
                      "                       (default: $GEMMTUNE_REDIS_URL; \"\" for none)"},
  };
}

Result<StoreOptions> store_options_from(const Args& args) {
  StoreOptions options = StoreOptions::from_env();
  options.path = args.get("cache", options.path);
  options.redis_url = args.get("redis", options.redis_url);
  if (args.has("cache-mode")) {
    auto mode = parse_store_mode(args.get("cache-mode", ""));
    if (!mode.is_ok()) return invalid_argument("--cache-mode: " + mode.status().message());
    options.mode = *mode;
  }
  if (Status checked = options.check(); !checked.is_ok()) {
    return invalid_argument(std::string(args.has("cache") ? "--cache" : "GEMMTUNE_CACHE") + ": " + checked.message());
  }
  return options;
}

Result<SessionOptions> session_options_from(const Args& args) {
  SessionOptions options;
  options.device = args.get("device", "cpu");
  GEMMTUNE_ASSIGN_OR_RETURN(options.tuning.search, parse_search_space(args.get("search", "default")));
  GEMMTUNE_ASSIGN_OR_RETURN(options.tuning.benchmark, parse_benchmark_space(args.get("benchmark", "all")));
  if (args.flag("fast")) {
    if (args.has("search") || args.has("benchmark")) {
      return invalid_argument("--fast means --search exhaustive --benchmark top:K (the model's own K); give either "
                              "--fast or --search/--benchmark");
    }
    set_fast(options.tuning);
  }
  options.lut_path = args.get("lut", options.lut_path);
  options.model_path = args.get("model", options.model_path);
  options.tuning.backends = split_list(args.get("backends", ""));
  GEMMTUNE_ASSIGN_OR_RETURN(auto samples, args.get_int("samples", options.tuning.timing.samples, 1, 1000));
  options.tuning.timing.samples = int(samples);
  GEMMTUNE_ASSIGN_OR_RETURN(options.tuning.timing.min_sample_ms,
                            args.get_double("min-sample-ms", options.tuning.timing.min_sample_ms));
  if (options.tuning.timing.min_sample_ms < 0) return invalid_argument("--min-sample-ms must be >= 0");
  options.tuning.print_table = args.flag("verbose");
  GEMMTUNE_ASSIGN_OR_RETURN(options.store, store_options_from(args));
  return options;
}

// The library's JSON (gemmtune/report_json.h), as objects the commands add to.
nlohmann::json problem_json(const Problem& p) { return nlohmann::json::parse(json_text(p)); }
nlohmann::json choice_json(const ChoiceReport& c) { return nlohmann::json::parse(json_text(c)); }
nlohmann::json report_json(const TuneReport& report) { return nlohmann::json::parse(json_text(report)); }
nlohmann::json device_json(const DeviceInfo& device) { return nlohmann::json::parse(json_text(device)); }

std::vector<std::string> split_list(const std::string& list) {
  std::vector<std::string> items;
  for (std::size_t pos = 0; pos < list.size();) {
    std::size_t comma = list.find(',', pos);
    if (comma == std::string::npos) comma = list.size();
    if (comma > pos) items.push_back(list.substr(pos, comma - pos));
    pos = comma + 1;
  }
  return items;
}

std::vector<std::string> peer_backends(const Session& session, const std::vector<std::string>& only) {
  std::vector<std::string> peers;
  for (const BackendAvailability& b : compiled_backends(session.device().kind)) {
    const bool peer = b.name == "onednn" || b.name == "openblas" || b.name == "libxsmm" || b.name == "cublaslt";
    bool wanted = only.empty();
    for (const std::string& name : only) wanted = wanted || name == b.name;
    if (peer && b.available && wanted) peers.push_back(b.name);
  }
  return peers;
}

Status replace_file(const std::string& path, const std::string& text) {
  const std::string temp = path + ".tmp." + std::to_string(getpid());
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    if (!out) {
      std::error_code ignored;
      std::filesystem::remove(temp, ignored);
      return Status(ErrorCode::io_error, "cannot write " + temp + ": " + std::strerror(errno));
    }
  }
  std::error_code error;
  std::filesystem::rename(temp, path, error);
  if (error) {
    std::filesystem::remove(temp, error);
    return Status(ErrorCode::io_error, "cannot replace " + path + ": " + error.message());
  }
  return Status::ok();
}

PlotScratch::PlotScratch() {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp != nullptr && *tmp != 0 ? tmp : "/tmp") + "/gemmtune-plot-XXXXXX";
  if (mkdtemp(pattern.data()) != nullptr) dir_ = pattern;
}

PlotScratch::~PlotScratch() {
  std::error_code ignored;
  if (!dir_.empty()) std::filesystem::remove_all(dir_, ignored);
}

Status PlotScratch::status() const {
  return dir_.empty() ? Status(ErrorCode::io_error, "cannot make a scratch directory for the plot's data") : Status::ok();
}

Status run_gnuplot(const std::string& script_path) {
  const std::string command = "gnuplot '" + script_path + "' 2>&1";
  if (std::system(command.c_str()) != 0) {
    return Status(ErrorCode::unavailable, "gnuplot failed (is gnuplot installed?) running " + script_path);
  }
  return Status::ok();
}

double geometric_mean(const std::vector<double>& values) {
  double sum = 0;
  int count = 0;
  for (double v : values) {
    if (v > 0) {
      sum += std::log(v);
      ++count;
    }
  }
  return count ? std::exp(sum / count) : 0.0;
}

}  // namespace gemmtune::cli

