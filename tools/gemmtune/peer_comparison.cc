#include "peer_comparison.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>

#include "common.h"
#include "gemmtune/timing.h"

namespace gemmtune::cli {

namespace {

// The finalist other than the pick that the tuning's final round timed fastest; null when
// there is none. (The pick need not be the fastest finalist: within the noise band the
// tie-break order decides.)
const ChoiceReport* tuning_runner_up(const std::vector<ChoiceReport>& finalists, const PickInfo& pick) {
  const ChoiceReport* runner_up = nullptr;
  for (const ChoiceReport& c : finalists) {
    const bool is_pick = c.backend == pick.backend && c.config == pick.config;
    if (!is_pick && (runner_up == nullptr || c.final_ratio < runner_up->final_ratio)) runner_up = &c;
  }
  return runner_up;
}

}  // namespace

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
  // handle (no dispatch) twice, the A/A control, and the tuning's runner-up; then every config
  // of every peer and its per-call configs; each peer keeps its fastest of each kind.
  enum class Role { peer, own, own_copy, runner_up };
  struct Timed {
    std::unique_ptr<GemmKernel> kernel;
    Role role = Role::peer;
    std::size_t peer = 0;  // index into out.peers, for Role::peer
    bool first = false, handle = false, per_call = false;
  };
  std::vector<Timed> timed;
  for (Role role : {Role::own, Role::own_copy}) {
    if (auto own = session.kernel(problem, pick.backend, pick.config); own.is_ok()) {
      timed.push_back({std::move(own).value(), role});
    }
  }
  if (const ChoiceReport* runner_up = tuning_runner_up(out.finalists, pick)) {
    if (auto kernel = session.kernel(problem, runner_up->backend, runner_up->config); kernel.is_ok()) {
      timed.push_back({std::move(kernel).value(), Role::runner_up});
      out.runner_up_backend = runner_up->backend;
      out.runner_up_config = runner_up->config.to_string();
      // final_ratio is over the fastest finalist, which need not be the pick.
      for (const ChoiceReport& c : out.finalists) {
        if (c.backend == pick.backend && c.config == pick.config && c.final_ratio > 0) {
          out.runner_up_tuning_ratio = runner_up->final_ratio / c.final_ratio;
        }
      }
    }
  }
  for (const std::string& name : peers) {
    PeerTime peer;
    peer.backend = name;
    auto configs = session.peer_configs(problem, name);
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
        timed.push_back({std::move(kernel).value(), Role::peer, out.peers.size(), c == 0, is_handle, is_per_call});
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
  // A peer's time over Session::gemm's; the lower, the faster the peer.
  auto over_gemm = [&](const TimingStats& s) { return median_ratio_by_round(s.sample_us, out.gemmtune_rounds_us); };
  auto faster = [](double best, double ratio) { return best < 0 || ratio < best; };
  const TimingStats* own = nullptr;
  for (std::size_t i = 0; i < timed.size(); ++i) {
    if (timed[i].role == Role::own && stats[i + 1].is_ok()) own = &*stats[i + 1];
  }
  // A time over the pick handle's, round by round, the median; -1 without both.
  auto over_own = [&](const Result<TimingStats>& s) {
    return own != nullptr && s.is_ok() ? median_ratio_by_round(s->sample_us, own->sample_us) : -1.0;
  };
  for (std::size_t i = 0; i < timed.size(); ++i) {
    const Timed& t = timed[i];
    const Result<TimingStats>& s = stats[i + 1];
    switch (t.role) {
      case Role::own:
        if (s.is_ok()) {
          out.gemmtune_kernel_us = s->median_us;
          out.gemmtune_kernel_rounds_us = s->sample_us;
        }
        out.pick_detail = t.kernel->detail();
        continue;
      case Role::own_copy:
        out.aa_ratio = over_own(s);
        continue;
      case Role::runner_up:
        out.runner_up_bench_ratio = over_own(s);
        continue;
      case Role::peer:
        break;
    }
    PeerTime& peer = out.peers[t.peer];
    if (!s.is_ok()) {
      if (peer.time_us < 0 && peer.note.empty()) peer.note = s.status().message();
      continue;
    }
    const double ratio = over_gemm(*s);
    if (t.first) {
      peer.default_us = s->median_us;
      peer.default_ratio = ratio;
      peer.default_config = t.kernel->config().to_string();
      peer.default_detail = t.kernel->detail();
    }
    if (t.handle && faster(peer.ratio, ratio)) {
      peer.time_us = s->median_us;
      peer.ratio = ratio;
      peer.config = t.kernel->config().to_string();
      peer.rounds_us = s->sample_us;
      peer.detail = t.kernel->detail();
    }
    if (t.per_call && faster(peer.per_call_ratio, ratio)) {
      peer.per_call_us = s->median_us;
      peer.per_call_ratio = ratio;
      peer.per_call_config = t.kernel->config().to_string();
    }
  }
  for (PeerTime& peer : out.peers) {
    if (peer.time_us > 0) peer.note.clear();
  }
  return out;
}

namespace {

// The fastest peer of a shape by one of its ratios to Session::gemm (PeerTime::ratio: its
// fastest config; PeerTime::per_call_ratio: its per-call configs); null when none could run it.
const PeerTime* fastest_peer(const ShapeComparison& row, double PeerTime::*ratio) {
  const PeerTime* best = nullptr;
  for (const PeerTime& peer : row.peers) {
    if (peer.*ratio > 0 && (best == nullptr || peer.*ratio < best->*ratio)) best = &peer;
  }
  return best;
}
const PeerTime* best_peer(const ShapeComparison& row) { return fastest_peer(row, &PeerTime::ratio); }
const PeerTime* best_peer_per_call(const ShapeComparison& row) { return fastest_peer(row, &PeerTime::per_call_ratio); }

// The best peer's fastest config over the pick's kernel called as a handle, round by round;
// -1 without the handle's time.
double best_over_kernel(const ShapeComparison& row, const PeerTime& best) {
  if (row.gemmtune_kernel_us <= 0) return -1;
  return median_ratio_by_round(best.rounds_us, row.gemmtune_kernel_rounds_us);
}

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
      if (peer.ratio > 0) ratios[peer.backend].push_back(peer.ratio);
    }
    if (const PeerTime* best = best_peer(row)) {
      ratios["best_peer"].push_back(best->ratio);
      if (const double kernel = best_over_kernel(row, *best); kernel > 0) ratios["best_peer_kernel"].push_back(kernel);
    }
    if (const PeerTime* best = best_peer_per_call(row)) {
      ratios["best_peer_per_call"].push_back(best->per_call_ratio);
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
        std::snprintf(line, sizeof line, " %12.2f %7.2fx", peer.time_us, peer.ratio);
      } else {
        std::snprintf(line, sizeof line, " %12s %8s", "-", "-");
      }
      out += line;
    }
    if (const PeerTime* best = best_peer(row)) {
      std::snprintf(line, sizeof line, "  %.2fx %s", best->ratio, best->backend.c_str());
      out += line;
    }
    if (const PeerTime* best = best_peer_per_call(row)) {
      std::snprintf(line, sizeof line, "  %.2fx %s", best->per_call_ratio, best->backend.c_str());
      out += line;
    }
    out += "\n";
  }
  out += "geometric mean of peer time / gemmtune time (round by round):";
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

// The tuning's runner-up timed again beside the pick; `agrees` is false when this run finds
// the two ≥ 3 % apart the other way round from the tuning, or finds the runner-up faster
// where the tuning had it ≥ 3 % slower (issue 30's agreement rule).
nlohmann::json runner_up_json(const ShapeComparison& row) {
  if (row.runner_up_bench_ratio <= 0) return nullptr;
  const bool bench_reverses = row.runner_up_bench_ratio < 0.97;
  const bool tuning_clear = row.runner_up_tuning_ratio >= 1.03;
  const bool agrees = !bench_reverses && !(tuning_clear && row.runner_up_bench_ratio < 1.0);
  return {{"backend", row.runner_up_backend},
          {"config", row.runner_up_config},
          {"tuning_ratio", row.runner_up_tuning_ratio > 0 ? nlohmann::json(row.runner_up_tuning_ratio)
                                                           : nlohmann::json(nullptr)},
          {"bench_ratio", row.runner_up_bench_ratio},
          {"agrees", agrees}};
}

}  // namespace

nlohmann::json comparison_json(const std::vector<ShapeComparison>& rows) {
  nlohmann::json shapes = nlohmann::json::array();
  for (const ShapeComparison& row : rows) {
    nlohmann::json peers = nlohmann::json::object();
    for (const PeerTime& peer : row.peers) {
      nlohmann::json p;
      if (peer.time_us > 0) {
        p = {{"time_us", peer.time_us},
             {"ratio", peer.ratio},
             {"ratio_of_medians", peer.time_us / row.gemmtune_us},
             {"config", peer.config}};
        if (!peer.detail.empty()) p["detail"] = peer.detail;
        if (peer.default_us > 0) {
          p["default_time_us"] = peer.default_us;
          p["default_ratio"] = peer.default_ratio;
          p["default_config"] = peer.default_config;
          if (!peer.default_detail.empty()) p["default_detail"] = peer.default_detail;
        }
        if (peer.per_call_us > 0) {
          p["per_call_time_us"] = peer.per_call_us;
          p["per_call_ratio"] = peer.per_call_ratio;
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
              {"ratio", b->ratio},
              {"ratio_of_medians", b->time_us / row.gemmtune_us},
              {"ratio_by_round", ratio_by_round(row, *b)}};
      if (const double kernel = best_over_kernel(row, *b); kernel > 0) {
        best_kernel = {{"backend", b->backend}, {"time_us", b->time_us}, {"ratio", kernel}};
      }
    }
    if (const PeerTime* b = best_peer_per_call(row)) {
      best_per_call = {{"backend", b->backend}, {"time_us", b->per_call_us}, {"ratio", b->per_call_ratio}};
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
                      {"pick",
                       {{"backend", row.pick_backend},
                        {"config", row.pick_config},
                        {"detail", row.pick_detail},
                        {"finalists", finalists}}},
                      {"tuning_s", row.tuning_s},
                      {"aa_ratio", row.aa_ratio > 0 ? nlohmann::json(row.aa_ratio) : nlohmann::json(nullptr)},
                      {"runner_up", runner_up_json(row)},
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
           "peer time / gemmtune time, round by round of the interleaved run, the median (ratio_of_medians: the "
           "two medians' ratio); above 1 gemmtune is faster. best_peer: Session::gemm (dispatch included) "
           "against each peer's fastest config (ratio_by_round: the rounds' median and quartiles); best_peer_per_call: against each peer's per-call configs (the shape "
           "given at the call on both sides: libxsmm's lookup, oneDNN's sgemm); best_peer_kernel: gemmtune's pick "
           "called as a handle against the peers' fastest configs (no dispatch on either side); aa_ratio: the pick's "
           "kernel timed as two candidates, the second's time over the first's round by round (the run's "
           "resolution); runner_up: the tuning's runner-up timed again, its time over the pick's in the tuning and "
           "in this run"}};
}

}  // namespace gemmtune::cli
