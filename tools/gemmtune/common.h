// Pieces the CLI commands share: options common to several commands, building a Session from
// them, JSON of reports, lists and means.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "args.h"
#include "gemmtune/session.h"

namespace gemmtune::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;
inline constexpr int kExitUsage = 2;

// Whether the command line (after the command's name) holds --help.
bool asks_for_help(int argc, char** argv);

// kExitUsage for invalid arguments (and what was not found), kExitFailed for other errors.
int exit_code(const Status& status);
// Prints "gemmtune: <message>" and returns exit_code(status).
int fail(const Status& status);

// --device, --search, --benchmark, --fast, --lut, --model, --backends, --samples,
// --min-sample-ms, --verbose, --cache, --cache-mode.
std::vector<OptionSpec> session_options();
Result<SessionOptions> session_options_from(const Args& args);
// --cache, --cache-mode: where the tuning store is; over the GEMMTUNE_CACHE* environment.
std::vector<OptionSpec> store_options();
Result<StoreOptions> store_options_from(const Args& args);

nlohmann::json problem_json(const Problem& problem);
nlohmann::json report_json(const TuneReport& report);
nlohmann::json choice_json(const ChoiceReport& choice);
nlohmann::json device_json(const DeviceInfo& device);

// The libraries gemmtune is measured against on the session's device, whatever the session
// chooses among (--backends): oneDNN, OpenBLAS and libxsmm on the CPU, cuBLASLt's first
// heuristic pick (what torch.mm gets) on a GPU. `only`, when not empty, narrows them (--peers).
std::vector<std::string> peer_backends(const Session& session, const std::vector<std::string>& only = {});

// "a,b,c" → {"a", "b", "c"}, empty items dropped.
std::vector<std::string> split_list(const std::string& list);

// Writes `text` to a file beside `path` and renames it over `path`: a reader, or a run killed
// while writing, sees the old file or the new one whole, never half of one.
Status replace_file(const std::string& path, const std::string& text);

// Where a plot's data and gnuplot script go: a directory of their own, removed with the object,
// so --plot FILE.png leaves the picture the user asked for and not gnuplot's inputs beside it.
class PlotScratch {
 public:
  PlotScratch();
  ~PlotScratch();
  PlotScratch(const PlotScratch&) = delete;
  PlotScratch& operator=(const PlotScratch&) = delete;
  Status status() const;  // io_error when the directory could not be made
  std::string data() const { return dir_ + "/plot.dat"; }
  std::string script() const { return dir_ + "/plot.gp"; }

 private:
  std::string dir_;
};

// Runs gnuplot on a script; unavailable when it fails (or is not installed).
Status run_gnuplot(const std::string& script_path);

// exp(mean(log x)) of the positive entries; 0 when there are none.
double geometric_mean(const std::vector<double>& values);

}  // namespace gemmtune::cli
