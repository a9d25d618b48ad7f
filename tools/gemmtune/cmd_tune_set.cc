// gemmtune tune-set: tune every shape of a set into the tuning store, alone or sharded over the
// ranks of an MPI job (one device each). Each rank tunes its share on its own device and stores
// its picks; ranks on other hosts share them through Redis (--redis). Rank 0 gathers what each
// rank did and prints one report; `gemmtune lut export` then carries the picks to a deployment.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>

#include "commands.h"
#include "common.h"
#include "ranks.h"
#include "shapes.h"

namespace gemmtune::cli {
namespace {

std::vector<OptionSpec> tune_set_specs() {
  std::vector<OptionSpec> specs = shape_options();
  specs.push_back({"json", false, "--json                 print the report as JSON"});
  specs.push_back({"retune", false, "--retune               tune even the shapes the store holds (and overwrite them)"});
  specs.push_back(shared_device_option());
  for (OptionSpec& spec : session_options()) specs.push_back(spec);
  return specs;
}

// One shape's outcome on the rank that tuned it.
nlohmann::json outcome_json(std::size_t index, const Problem& problem, const Result<TuneReport>& report) {
  nlohmann::json row = {{"index", index}, {"problem", problem.describe()}};
  if (!report.is_ok()) {
    row["error"] = report.status().message();
    return row;
  }
  row["store_hit"] = report->store_hit;
  row["tuning_s"] = report->tuning_s;
  row["compilations"] = report->compilations;
  if (!report->selection.empty()) row["selection"] = report->selection;
  if (const ChoiceReport* best = report->best_choice()) {
    row["backend"] = best->backend;
    row["config"] = best->config.to_string();
    row["time_us"] = best->time_us;
  } else {
    row["error"] = "no choice ran correctly";
  }
  return row;
}

std::string render(const nlohmann::json& report) {
  std::string out;
  char line[512];
  std::snprintf(line, sizeof line, "tune-set: %zu shapes on %d rank%s\n", report["shapes"].size(),
                report["ranks"].get<int>(), report["ranks"].get<int>() == 1 ? "" : "s");
  out += line;
  for (const auto& rank : report["rank_devices"]) {
    std::string bound;
    if (rank.contains("cpus") && rank["cpus"].get<int>() < rank["online_cpus"].get<int>()) {
      bound = " (bound to " + std::to_string(rank["cpus"].get<int>()) + " of the host's " +
              std::to_string(rank["online_cpus"].get<int>()) +
              " CPUs, so its picks are stored for that many threads; mpirun --bind-to none gives a rank all of them)";
    }
    std::snprintf(line, sizeof line, "  rank %d: host %s, %s%s\n", rank["rank"].get<int>(),
                  rank["host"].get<std::string>().c_str(), rank["device"].get<std::string>().c_str(), bound.c_str());
    out += line;
  }
  std::snprintf(line, sizeof line, "%-36s %4s  %-9s %-44s %10s %9s\n", "shape", "rank", "source", "pick", "time us",
                "tuning s");
  out += line;
  for (const auto& row : report["shapes"]) {
    const bool failed = row.contains("error");
    const std::string source = failed ? "failed" : row["store_hit"].get<bool>() ? "store" : "tuned";
    const std::string pick =
        failed ? row["error"].get<std::string>() : row["backend"].get<std::string>() + " " + row["config"].get<std::string>();
    std::snprintf(line, sizeof line, "%-36s %4d  %-9s %-44s %10.2f %9.2f\n", row["problem"].get<std::string>().c_str(),
                  row["rank"].get<int>(), source.c_str(), pick.c_str(), failed ? 0.0 : row["time_us"].get<double>(),
                  failed ? 0.0 : row["tuning_s"].get<double>());
    out += line;
  }
  std::snprintf(line, sizeof line, "%d tuned, %d from the store, %d failed; %.1f s of tuning on the busiest rank\n",
                report["tuned"].get<int>(), report["from_store"].get<int>(), report["failed"].get<int>(),
                report["busiest_rank_s"].get<double>());
  out += line;
  return out;
}

// What a rank needs before it tunes: its options, its session on its own device, the set.
struct SetUp {
  Args args;
  std::unique_ptr<Session> session;
  ShapeSelection shapes;
};

Result<SetUp> set_up_rank(const std::vector<OptionSpec>& specs, int argc, char** argv, const Ranks& ranks) {
  GEMMTUNE_ASSIGN_OR_RETURN(Args args, Args::parse("tune-set", specs, argc, argv, 2));
  GEMMTUNE_ASSIGN_OR_RETURN(SessionOptions options, session_options_from(args));
  GEMMTUNE_ASSIGN_OR_RETURN(options.device, device_for_rank(options.device, ranks, args.flag("shared-device")));
  GEMMTUNE_ASSIGN_OR_RETURN(std::unique_ptr<Session> session, Session::create(options));
  GEMMTUNE_ASSIGN_OR_RETURN(ShapeSelection shapes, shapes_from(args, session->device().kind == DeviceKind::cuda));
  return SetUp{std::move(args), std::move(session), std::move(shapes)};
}

// The same mistake on every rank is said once: rank 0 prints each distinct message with the
// ranks that met it.
void say_once(const Ranks& ranks, const Status& status) {
  const std::vector<std::string> messages = ranks.gather(status.is_ok() ? "" : status.message());
  std::map<std::string, std::string> ranks_of;  // message -> "0, 1"
  for (std::size_t r = 0; r < messages.size(); ++r) {
    if (messages[r].empty()) continue;
    std::string& ranks_text = ranks_of[messages[r]];
    ranks_text += (ranks_text.empty() ? "" : ", ") + std::to_string(r);
  }
  for (const auto& [message, ranks_text] : ranks_of) {
    const bool several = ranks_text.find(',') != std::string::npos;
    const std::string who = ranks.size() == 1 ? "" : (several ? "ranks " : "rank ") + ranks_text + ": ";
    std::fprintf(stderr, "gemmtune: %s%s\n", who.c_str(), message.c_str());
  }
}

}  // namespace

int run_tune_set(int argc, char** argv) {
  const std::vector<OptionSpec> specs = tune_set_specs();
  auto ranks = Ranks::join();
  if (!ranks.is_ok()) return fail(ranks.status());
  const Ranks& all = **ranks;
  if (asks_for_help(argc, argv)) {
    if (all.rank() != 0) return kExitOk;
    std::cout << usage("tune-set",
                       "Tunes every shape of a set and stores the picks, as `tune` does one. Started by\n"
                       "mpirun, the ranks share the shapes out (shape i to rank i mod ranks), each on its\n"
                       "own device (--device cuda: a host's GPUs by local rank; --device cpu: one rank per\n"
                       "host), and store their picks: in one SQLite file where the ranks share a host, in\n"
                       "Redis (--redis) where they do not. Rank 0 prints what every rank did.\n"
                       "  mpirun -n 8 gemmtune tune-set --device cuda --shapes llm --dtype bf16 --layout nt\n"
                       "  gemmtune bundle create DIR          # then ship the picks and their GPU kernels",
                       specs);
    return kExitOk;
  }

  // A rank whose set-up fails still meets the others at the gathers: one that left early would
  // hang the job.
  Result<SetUp> set_up = set_up_rank(specs, argc, argv, all);
  const Status status = set_up.status();
  if (all.any(!status.is_ok())) {
    say_once(all, status);
    return status.is_ok() ? kExitFailed : exit_code(status);
  }
  const Args& args = set_up->args;
  Session* session = set_up->session.get();
  const std::vector<Problem>& problems = set_up->shapes.problems;
  const bool retune = args.flag("retune");
  nlohmann::json mine = nlohmann::json::array();
  double busy_s = 0;
  for (std::size_t i = 0; i < problems.size(); ++i) {
    if (!all.owns(i)) continue;
    std::fprintf(stderr, "[rank %d, %zu/%zu] %s\n", all.rank(), i + 1, problems.size(), problems[i].describe().c_str());
    const auto start = std::chrono::steady_clock::now();
    Result<TuneReport> report = retune ? session->tune(problems[i]) : session->tune_or_load(problems[i]);
    busy_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    nlohmann::json row = outcome_json(i, problems[i], report);
    row["rank"] = all.rank();
    mine.push_back(std::move(row));
  }
  nlohmann::json part = {{"rank", all.rank()},
                         {"host", all.host()},
                         {"device", session->device().name},
                         {"fingerprint", session->device().fingerprint()},
                         {"busy_s", busy_s},
                         {"rows", mine}};
  // mpirun binds each rank to a core or a socket by default: a CPU rank then tunes, and stores
  // its picks, for the threads it was left, not for the host.
  if (session->device().kind == DeviceKind::cpu) {
    part["cpus"] = session->device().cpu.logical_cores;
    part["online_cpus"] = int(sysconf(_SC_NPROCESSORS_ONLN));
  }
  const std::vector<std::string> parts = all.gather(part.dump());
  int failed = 0;
  for (const auto& row : mine) failed += row.contains("error");
  const bool any_failed = all.any(failed > 0);
  if (all.rank() != 0) return any_failed ? kExitFailed : kExitOk;

  nlohmann::json report = {{"ranks", all.size()}, {"set", set_up->shapes.set}, {"layout", set_up->shapes.layout},
                           {"rank_devices", nlohmann::json::array()}};
  std::vector<nlohmann::json> rows(problems.size());
  int tuned = 0, from_store = 0, failures = 0;
  double busiest = 0;
  for (const std::string& text : parts) {
    const nlohmann::json p = nlohmann::json::parse(text);
    nlohmann::json rank = {{"rank", p["rank"]}, {"host", p["host"]}, {"device", p["device"]},
                           {"fingerprint", p["fingerprint"]}, {"busy_s", p["busy_s"]}};
    if (p.contains("cpus")) {
      rank["cpus"] = p["cpus"];
      rank["online_cpus"] = p["online_cpus"];
    }
    report["rank_devices"].push_back(std::move(rank));
    busiest = std::max(busiest, p["busy_s"].get<double>());
    for (const auto& row : p["rows"]) {
      rows[row["index"].get<std::size_t>()] = row;
      if (row.contains("error")) {
        ++failures;
      } else if (row["store_hit"].get<bool>()) {
        ++from_store;
      } else {
        ++tuned;
      }
    }
  }
  report["shapes"] = rows;
  report["tuned"] = tuned;
  report["from_store"] = from_store;
  report["failed"] = failures;
  report["busiest_rank_s"] = busiest;
  if (args.flag("json")) {
    std::cout << report.dump(2) << "\n";
  } else {
    std::cout << render(report);
  }
  return any_failed ? kExitFailed : kExitOk;
}

}  // namespace gemmtune::cli
