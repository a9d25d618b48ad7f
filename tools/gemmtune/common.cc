#include "common.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>

#include "gemmtune/timing.h"

namespace gemmtune::cli {

int fail(const Status& status) {
  std::fprintf(stderr, "gemmtune: %s\n", status.message().c_str());
  return status.code() == ErrorCode::invalid_argument || status.code() == ErrorCode::not_found ? kExitUsage
                                                                                                : kExitFailed;
}

std::vector<OptionSpec> session_options() {
  std::vector<OptionSpec> specs = {
      {"device", true, "--device D             device to run on: cpu (default)"},
      {"search", true, "--search S             config space: default | exhaustive"},
      {"benchmark", true, "--benchmark B          which searched choices are timed: all (default) | top:K\n"
                          "                       (the K the cost model ranks fastest)"},
      {"fast", false, "--fast                 --search exhaustive --benchmark top:" + std::to_string(kFastTopK)},
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
  return options;
}

Result<SessionOptions> session_options_from(const Args& args) {
  SessionOptions options;
  options.device = args.get("device", "cpu");
  GEMMTUNE_ASSIGN_OR_RETURN(options.tuning.search, parse_search_space(args.get("search", "default")));
  GEMMTUNE_ASSIGN_OR_RETURN(options.tuning.benchmark, parse_benchmark_space(args.get("benchmark", "all")));
  if (args.flag("fast")) {
    if (args.has("search") || args.has("benchmark")) {
      return invalid_argument("--fast means --search exhaustive --benchmark top:" + std::to_string(kFastTopK) +
                              "; give either --fast or --search/--benchmark");
    }
    options.tuning.search = SearchSpace::exhaustive;
    options.tuning.benchmark.top_k = kFastTopK;
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

nlohmann::json problem_json(const Problem& p) {
  return {{"m", p.m()},
          {"n", p.n()},
          {"k", p.k()},
          {"a_dtype", dtype_name(p.a_type())},
          {"b_dtype", dtype_name(p.b_type())},
          {"c_dtype", dtype_name(p.c_type())},
          {"layout", p.layout_letters()},
          {"lda", p.lda()},
          {"ldb", p.ldb()},
          {"ldc", p.ldc()},
          {"alpha", p.alpha()},
          {"beta", p.beta()},
          {"key", ProblemKey::of(p).to_string()}};
}

namespace {

nlohmann::json choice_json(const ChoiceReport& c) {
  nlohmann::json choice = {{"backend", c.backend},
                           {"config", c.config.to_string()},
                           {"status", choice_status_name(c.status)},
                           {"time_us", c.time_us >= 0 ? nlohmann::json(c.time_us) : nlohmann::json(nullptr)}};
  if (c.error >= 0) choice["error"] = c.error;
  if (c.prepare_s >= 0) choice["prepare_s"] = c.prepare_s;
  if (c.final_ratio > 0) {
    choice["final_ratio"] = c.final_ratio;
    choice["final_rounds"] = c.final_rounds;
  }
  if (!c.reason.empty()) choice["reason"] = c.reason;
  return choice;
}

}  // namespace

nlohmann::json report_json(const TuneReport& report) {
  nlohmann::json choices = nlohmann::json::array();
  for (const ChoiceReport& c : report.choices) choices.push_back(choice_json(c));
  nlohmann::json best = nullptr;
  if (const ChoiceReport* b = report.best_choice()) {
    best = {{"index", report.best}, {"backend", b->backend}, {"config", b->config.to_string()}, {"time_us", b->time_us}};
  }
  return {{"choices", choices},
          {"best", best},
          {"selection", report.selection},
          {"tuning_s", report.tuning_s},
          {"store_hit", report.store_hit},
          {"compilations", report.compilations}};
}

nlohmann::json device_json(const DeviceInfo& device) {
  const CpuInfo& cpu = device.cpu;
  return {{"name", device.name},
          {"fingerprint", device.fingerprint()},
          {"device_class", device.device_class()},
          {"cpu",
           {{"model", cpu.model},
            {"features", cpu.feature_names()},
            {"best_isa", cpu_isa_name(cpu.best_isa())},
            {"isa_cap", cpu.isa_cap},
            {"logical_cores", cpu.logical_cores},
            {"physical_cores", cpu.physical_cores},
            {"l1d_bytes", cpu.l1d_bytes},
            {"l2_bytes", cpu.l2_bytes},
            {"l3_bytes", cpu.l3_bytes}}}};
}

Result<ShapeComparison> compare_with_peers(Session& session, const Problem& problem,
                                           const std::vector<std::string>& peers, const TimingOptions& timing) {
  ShapeComparison out;
  out.problem = problem.describe();
  out.m = problem.m();
  out.n = problem.n();
  out.k = problem.k();
  // Tuning on first sight, as a user's first call of the shape would.
  const auto start = std::chrono::steady_clock::now();
  if (session.options().routing.route.policy == RoutePolicy::autotune && problem.m() > 0 && problem.n() > 0) {
    GEMMTUNE_ASSIGN_OR_RETURN(TuneReport report, session.tune_or_load(problem));
    for (const ChoiceReport& c : report.choices) {
      if (c.final_ratio > 0) out.finalists.push_back(c);
    }
  } else {
    GEMMTUNE_RETURN_IF_ERROR(session.prepare(problem));  // routed to a sub-kernel of the family's op
  }
  out.tuning_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  GEMMTUNE_ASSIGN_OR_RETURN(PickInfo pick, session.pick(problem));
  out.pick_backend = pick.backend;
  out.pick_config = pick.config.to_string();

  // Timed in one interleaved run after Session::gemm: gemmtune's pick called as a kernel
  // handle (no dispatch), then every config of every peer and its per-call configs; each peer
  // keeps its fastest of each kind.
  struct Timed {
    std::unique_ptr<GemmKernel> kernel;
    std::size_t peer;  // index into out.peers; peers.size() for gemmtune's own handle
    bool first = false, handle = false, per_call = false;
  };
  std::vector<Timed> timed;
  if (auto own = session.kernel(problem, pick.backend, pick.config); own.is_ok()) {
    timed.push_back({std::move(own).value(), peers.size()});
  }
  for (const std::string& name : peers) {
    PeerTime peer;
    peer.backend = name;
    auto configs = session.configs(problem, name);
    if (configs.is_ok() && configs->empty()) configs = std::vector<KernelConfig>{KernelConfig{}};
    const std::vector<KernelConfig> handles = configs.is_ok() ? *configs : std::vector<KernelConfig>{};
    auto per_call_list = session.per_call_configs(problem, name);
    const std::vector<KernelConfig> per_call = per_call_list.is_ok() ? *per_call_list : std::vector<KernelConfig>{};
    std::vector<KernelConfig> all = handles;
    for (const KernelConfig& c : per_call) {
      if (std::find(all.begin(), all.end(), c) == all.end()) all.push_back(c);
    }
    for (std::size_t c = 0; c < all.size(); ++c) {
      auto kernel = session.kernel(problem, name, all[c]);
      if (kernel.is_ok()) {
        const bool is_handle = c < handles.size();
        const bool is_per_call = std::find(per_call.begin(), per_call.end(), all[c]) != per_call.end();
        timed.push_back({std::move(kernel).value(), out.peers.size(), c == 0, is_handle, is_per_call});
      } else if (peer.note.empty()) {
        peer.note = kernel.status().message();
      }
    }
    if (!configs.is_ok()) peer.note = configs.status().message();
    out.peers.push_back(peer);
  }
  std::vector<GemmKernel*> kernels;
  for (const Timed& t : timed) kernels.push_back(t.kernel.get());
  std::vector<Result<TimingStats>> stats = session.time_with_peers(problem, kernels, timing);
  if (!stats[0].is_ok()) return stats[0].status();
  out.gemmtune_us = stats[0]->median_us;
  out.gemmtune_rounds_us = stats[0]->sample_us;
  auto faster = [](double best, double us) { return best < 0 || us < best; };
  for (std::size_t i = 0; i < timed.size(); ++i) {
    const Timed& t = timed[i];
    const Result<TimingStats>& s = stats[i + 1];
    if (t.peer == peers.size()) {
      if (s.is_ok()) out.gemmtune_kernel_us = s->median_us;
      continue;
    }
    PeerTime& peer = out.peers[t.peer];
    if (!s.is_ok()) {
      if (peer.time_us < 0 && peer.note.empty()) peer.note = s.status().message();
      continue;
    }
    if (t.first) peer.default_us = s->median_us, peer.default_config = t.kernel->config().to_string();
    if (t.handle && faster(peer.time_us, s->median_us)) {
      peer.time_us = s->median_us;
      peer.config = t.kernel->config().to_string();
      peer.rounds_us = s->sample_us;
    }
    if (t.per_call && faster(peer.per_call_us, s->median_us)) {
      peer.per_call_us = s->median_us;
      peer.per_call_config = t.kernel->config().to_string();
    }
  }
  for (PeerTime& peer : out.peers) {
    if (peer.time_us > 0) peer.note.clear();
  }
  return out;
}

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

namespace gemmtune::cli {
namespace {

// The fastest peer of a shape by one of its times (PeerTime::time_us: its fastest config;
// PeerTime::per_call_us: its per-call configs); null when none could run it.
const PeerTime* fastest_peer(const ShapeComparison& row, double PeerTime::*time) {
  const PeerTime* best = nullptr;
  for (const PeerTime& peer : row.peers) {
    if (peer.*time > 0 && (best == nullptr || peer.*time < best->*time)) best = &peer;
  }
  return best;
}
const PeerTime* best_peer(const ShapeComparison& row) { return fastest_peer(row, &PeerTime::time_us); }
const PeerTime* best_peer_per_call(const ShapeComparison& row) { return fastest_peer(row, &PeerTime::per_call_us); }

// Per peer, and against the best peer of each shape, the ratios peer time / gemmtune time, in
// the three pairings: Session::gemm against each peer's fastest config ("best_peer", the
// strictest), against each peer's per-call configs ("best_peer_per_call": the shape given at
// every call on both sides), and gemmtune's pick as a handle against the peers' handles
// ("best_peer_kernel": dispatch left out on both sides).
std::map<std::string, std::vector<double>> ratios_by_peer(const std::vector<ShapeComparison>& rows) {
  std::map<std::string, std::vector<double>> ratios;
  for (const ShapeComparison& row : rows) {
    if (row.gemmtune_us <= 0) continue;
    for (const PeerTime& peer : row.peers) {
      if (peer.time_us > 0) ratios[peer.backend].push_back(peer.time_us / row.gemmtune_us);
    }
    if (const PeerTime* best = best_peer(row)) {
      ratios["best_peer"].push_back(best->time_us / row.gemmtune_us);
      if (row.gemmtune_kernel_us > 0) ratios["best_peer_kernel"].push_back(best->time_us / row.gemmtune_kernel_us);
    }
    if (const PeerTime* best = best_peer_per_call(row)) {
      ratios["best_peer_per_call"].push_back(best->per_call_us / row.gemmtune_us);
    }
  }
  return ratios;
}

}  // namespace

std::string comparison_table(const std::vector<ShapeComparison>& rows) {
  std::string out;
  char line[512];
  if (rows.empty()) return out;
  std::snprintf(line, sizeof line, "%-22s %12s  %-9s", "shape (m n k)", "gemmtune us", "pick");
  out += line;
  for (const PeerTime& peer : rows.front().peers) {
    std::snprintf(line, sizeof line, " %12s %8s", (peer.backend + " us").c_str(), "ratio");
    out += line;
  }
  out += "  best peer  per call\n";
  for (const ShapeComparison& row : rows) {
    const std::string shape = std::to_string(row.m) + " " + std::to_string(row.n) + " " + std::to_string(row.k);
    std::snprintf(line, sizeof line, "%-22s %12.2f  %-9s", shape.c_str(), row.gemmtune_us, row.pick_backend.c_str());
    out += line;
    for (const PeerTime& peer : row.peers) {
      if (peer.time_us > 0) {
        std::snprintf(line, sizeof line, " %12.2f %7.2fx", peer.time_us, peer.time_us / row.gemmtune_us);
      } else {
        std::snprintf(line, sizeof line, " %12s %8s", "-", "-");
      }
      out += line;
    }
    if (const PeerTime* best = best_peer(row)) {
      std::snprintf(line, sizeof line, "  %.2fx %s", best->time_us / row.gemmtune_us, best->backend.c_str());
      out += line;
    }
    if (const PeerTime* best = best_peer_per_call(row)) {
      std::snprintf(line, sizeof line, "  %.2fx %s", best->per_call_us / row.gemmtune_us, best->backend.c_str());
      out += line;
    }
    out += "\n";
  }
  out += "geometric mean of peer time / gemmtune time:";
  const auto ratios = ratios_by_peer(rows);
  for (const auto& [peer, values] : ratios) {
    std::snprintf(line, sizeof line, "  %s %.3fx (%zu shapes)", peer.c_str(), geometric_mean(values), values.size());
    out += line;
  }
  if (auto best = ratios.find("best_peer"); best != ratios.end() && !best->second.empty()) {
    std::snprintf(line, sizeof line, "\nlowest ratio to the best peer: %.3fx",
                  *std::min_element(best->second.begin(), best->second.end()));
    out += line;
  }
  out += "\n";
  return out;
}

namespace {

// The q-quantile of `values` (0 ≤ q ≤ 1), interpolated between the two nearest; 0 of none.
double quantile(std::vector<double> values, double q) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const double at = q * double(values.size() - 1);
  const std::size_t below = std::size_t(at);
  if (below + 1 >= values.size()) return values.back();
  return values[below] + (at - double(below)) * (values[below + 1] - values[below]);
}

// The best peer's time over Session::gemm's, round by round of the interleaved run: its median
// and quartiles, which say how far one run's ratio can be trusted. On the 2-core VM a kernel
// of 30-90 ms reads a few percent apart from itself between runs.
nlohmann::json ratio_by_round(const ShapeComparison& row, const PeerTime& best) {
  const std::vector<double> ratios = ratios_by_round(best.rounds_us, row.gemmtune_rounds_us);
  if (ratios.empty()) return nullptr;
  return {{"median", median_of(ratios)}, {"q1", quantile(ratios, 0.25)}, {"q3", quantile(ratios, 0.75)}};
}

}  // namespace

nlohmann::json comparison_json(const std::vector<ShapeComparison>& rows) {
  nlohmann::json shapes = nlohmann::json::array();
  for (const ShapeComparison& row : rows) {
    nlohmann::json peers = nlohmann::json::object();
    for (const PeerTime& peer : row.peers) {
      nlohmann::json p;
      if (peer.time_us > 0) {
        p = {{"time_us", peer.time_us}, {"ratio", peer.time_us / row.gemmtune_us}, {"config", peer.config}};
        if (peer.default_us > 0) {
          p["default_time_us"] = peer.default_us;
          p["default_ratio"] = peer.default_us / row.gemmtune_us;
          p["default_config"] = peer.default_config;
        }
        if (peer.per_call_us > 0) {
          p["per_call_time_us"] = peer.per_call_us;
          p["per_call_ratio"] = peer.per_call_us / row.gemmtune_us;
          p["per_call_config"] = peer.per_call_config;
        }
      } else {
        p = {{"time_us", nullptr}, {"note", peer.note}};
      }
      peers[peer.backend] = p;
    }
    nlohmann::json best = nullptr, best_kernel = nullptr, best_per_call = nullptr;
    if (const PeerTime* b = best_peer(row)) {
      best = {{"backend", b->backend},
              {"time_us", b->time_us},
              {"ratio", b->time_us / row.gemmtune_us},
              {"ratio_by_round", ratio_by_round(row, *b)}};
      if (row.gemmtune_kernel_us > 0) {
        best_kernel = {{"backend", b->backend}, {"time_us", b->time_us}, {"ratio", b->time_us / row.gemmtune_kernel_us}};
      }
    }
    if (const PeerTime* b = best_peer_per_call(row)) {
      best_per_call = {{"backend", b->backend}, {"time_us", b->per_call_us}, {"ratio", b->per_call_us / row.gemmtune_us}};
    }
    nlohmann::json finalists = nlohmann::json::array();
    for (const ChoiceReport& c : row.finalists) finalists.push_back(choice_json(c));
    shapes.push_back({{"m", row.m},
                      {"n", row.n},
                      {"k", row.k},
                      {"problem", row.problem},
                      {"gemmtune_us", row.gemmtune_us},
                      {"gemmtune_kernel_us", row.gemmtune_kernel_us > 0 ? nlohmann::json(row.gemmtune_kernel_us)
                                                                         : nlohmann::json(nullptr)},
                      {"pick", {{"backend", row.pick_backend}, {"config", row.pick_config}, {"finalists", finalists}}},
                      {"tuning_s", row.tuning_s},
                      {"peers", peers},
                      {"best_peer", best},
                      {"best_peer_per_call", best_per_call},
                      {"best_peer_kernel", best_kernel}});
  }
  nlohmann::json means = nlohmann::json::object(), lowest = nlohmann::json::object();
  for (const auto& [peer, ratios] : ratios_by_peer(rows)) {
    means[peer] = geometric_mean(ratios);
    lowest[peer] = *std::min_element(ratios.begin(), ratios.end());
  }
  return {{"shapes", shapes},
          {"geomean_ratio", means},
          {"min_ratio", lowest},
          {"ratio",
           "peer time / gemmtune time; above 1 gemmtune is faster. best_peer: Session::gemm (dispatch included) "
           "against each peer's fastest config (ratio_by_round: the same round by round of the run, median and "
           "quartiles); best_peer_per_call: against each peer's per-call configs (the shape "
           "given at the call on both sides: libxsmm's lookup, oneDNN's sgemm); best_peer_kernel: gemmtune's pick "
           "called as a handle against the peers' fastest configs (no dispatch on either side)"}};
}

}  // namespace gemmtune::cli
