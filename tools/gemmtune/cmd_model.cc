// gemmtune model: train the cost model on sweeps, evaluate it on held-out sweeps, show one,
// rewrite one in this build's layout
// (docs/lut-and-model.md).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>

#include "commands.h"
#include "common.h"
#include "gemmtune/cost_model.h"

namespace gemmtune::cli {
namespace {

constexpr const char* kModelSummary =
    "The learned cost model that ranks choices for --benchmark top:K and --fast.\n"
    "  train --data A.csv[,B.csv] --out MODEL   train on sweeps (`gemmtune sweep`) of one device\n"
    "                                           (of several with --across-devices)\n"
    "  eval --data HELD_OUT.csv --top-k K       rank each held-out shape's configs, time only the top K:\n"
    "                                           geometric mean of exhaustive best / best of the top K,\n"
    "                                           and the fraction of exhaustive tuning time that costs\n"
    "  info MODEL                               what a model was trained on\n"
    "  upgrade MODEL [MODEL...]                 rewrite model files of an older layout in this build's\n"
    "                                           (the trees and all they know unchanged)\n"
    "eval takes --model MODEL, else the model in data/models trained on the sweep's device.";

std::vector<OptionSpec> model_specs() {
  return {
      {"data", true, "--data F[,F...]        sweep CSV files"},
      {"out", true, "--out MODEL            train: where the model goes"},
      {"model", true, "--model MODEL          eval: the model (default: the shipped one for the data's device)"},
      {"top-k", true, "--top-k K              eval: choices timed per shape (default: the k --fast times with\n"
                      "                       the model, fitted at training, else " + std::to_string(kFastTopK) + ")"},
      {"curve", true, "--curve N              eval: the quality/time curve for k = 1..N (default 20)"},
      {"plot", true, "--plot FILE.png        eval: draw quality and time fraction against k (gnuplot)"},
      {"json", false, "--json                 eval, info: print JSON"},
      {"transfer", false, "--transfer             eval: score --model on sweeps of another device (how it transfers to\n"
                          "                       a CPU it was not trained on; tunings there still do not use it)"},
      {"across-devices", false, "--across-devices       train: on the sweeps of several CPUs, the device's features (ISA\n"
                                "                       level, threads, L2) among the model's: it ranks for a CPU class\n"
                                "                       none of them is (score it with eval --transfer)"},
      {"rounds", true, "--rounds N             train: boosting rounds (default 300)"},
      {"depth", true, "--depth N              train: tree depth (default 6)"},
      {"eta", true, "--eta X                train: learning rate (default 0.1)"},
      {"threads", true, "--threads N            train: threads (default: every core)"},
  };
}

int train(const Args& args) {
  if (!CostModel::built_in()) return fail(unsupported("model train: " + CostModel::not_built_in_reason()));
  const std::vector<std::string> files = split_list(args.get("data", ""));
  if (files.empty()) return fail(invalid_argument("--data FILE.csv is required"));
  if (!args.has("out")) return fail(invalid_argument("--out MODEL is required"));
  TrainOptions options;
  auto rounds = args.get_int("rounds", options.rounds, 1, 100000);
  auto depth = args.get_int("depth", options.max_depth, 1, 32);
  auto eta = args.get_double("eta", options.eta);
  auto threads = args.get_int("threads", 0, 0, 1024);
  for (const Status& s : {rounds.status(), depth.status(), eta.status(), threads.status()}) {
    if (!s.is_ok()) return fail(s);
  }
  if (*eta <= 0 || *eta > 1) return fail(invalid_argument("--eta must be in (0, 1]"));
  options.rounds = int(*rounds);
  options.max_depth = int(*depth);
  options.eta = *eta;
  options.threads = int(*threads);
  std::vector<SweepData> sweeps;
  for (const std::string& file : files) {
    auto sweep = read_sweep_csv(file);
    if (!sweep.is_ok()) return fail(sweep.status());
    sweeps.push_back(std::move(sweep).value());
  }
  const auto start = std::chrono::steady_clock::now();
  auto model = CostModel::train(sweeps, files, options, /*fit_fast_top_k=*/true, args.flag("across-devices"));
  if (!model.is_ok()) return fail(model.status());
  const std::string out = args.get("out", "");
  if (Status saved = (*model)->save(out); !saved.is_ok()) return fail(saved);
  const ModelInfo& info = (*model)->info();
  std::fprintf(stderr, "trained %s on %lld rows of %zu shapes (%s) in %.1f s; training RMSE of ln(time) %.3f\n",
               out.c_str(), static_cast<long long>(info.training_rows), info.training_shapes.size(),
               info.device_class.c_str(),
               std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), info.training_rmse);
  if (info.fast_top_k > 0) {
    std::fprintf(stderr, "--fast times its top %d: on halves of the training shapes, each ranked by a model trained "
                         "on the other, quality %.3f at %.1f%% of the exhaustive tuning time (the worse half)\n",
                 info.fast_top_k, info.fast_fit_quality, 100 * info.fast_fit_time_fraction);
  } else if (!info.devices.empty()) {
    std::fprintf(stderr, "trained across %zu devices: k is not fitted (halves of the shapes would mix devices); "
                         "score it on a CPU class none of them is with `model eval --transfer`\n",
                 info.devices.size());
  } else {
    std::fprintf(stderr, "--fast times its top %d (k not fitted: fewer than %zu training shapes, or no k within "
                         "%.0f%% of the exhaustive tuning time)\n",
                 kFastTopK, kFastFitMinShapes, 100 * kFastFitTimeCap);
  }
  return kExitOk;
}

nlohmann::json point_json(const EvalPoint& p) {
  return {{"k", p.k},
          {"quality_geomean", p.quality_geomean},
          {"quality_min", p.quality_min},
          {"time_fraction", p.time_fraction},
          {"shapes_with_best", p.shapes_with_best}};
}

Status plot(const ModelEval& eval, const std::string& path, const std::string& title) {
  PlotScratch scratch;
  GEMMTUNE_RETURN_IF_ERROR(scratch.status());
  const std::string data = scratch.data();
  std::ofstream out(data);
  if (!out) return Status(ErrorCode::io_error, "cannot write " + data);
  out << "# k quality_geomean quality_min time_fraction\n";
  // The time axis reaches past its 0.10 target line, which would otherwise sit on the frame.
  double time_top = 0.2;
  for (const EvalPoint& p : eval.curve) time_top = std::max(time_top, 1.15 * p.time_fraction);
  for (const EvalPoint& p : eval.curve) {
    out << p.k << ' ' << p.quality_geomean << ' ' << p.quality_min << ' ' << p.time_fraction << '\n';
  }
  out.close();
  const std::string script = scratch.script();
  std::ofstream gp(script);
  // noenhanced: a device class such as cpu/avx512_bf16/2t is text, not "bf16" in subscript.
  gp << "set terminal pngcairo size 900,520 noenhanced\nset output '" << path << "'\n"
     << "set title '" << title << "'\nset xlabel 'k: choices timed per shape (cost model top k)'\n"
     << "set ylabel 'exhaustive best / best of top k'\nset y2label 'fraction of exhaustive tuning time'\n"
     << "set yrange [*:1.02]\nset y2range [0:" << time_top << "]\nset ytics nomirror\nset y2tics\nset key bottom right\nset grid\n"
     << "plot '" << data << "' using 1:2 with linespoints lw 2 title 'quality, geometric mean', "
     << "'' using 1:3 with lines dt 2 title 'quality, worst shape', "
     << "'' using 1:4 axes x1y2 with linespoints lw 2 title 'tuning time fraction (right)', "
     << "0.97 with lines lc rgb 'gray' lw 2 dt 3 title 'quality target 0.97', "
     << "0.10 axes x1y2 with lines lc rgb '#56b4e9' lw 2 dt 3 title 'time target 0.10 (right)'\n";
  gp.close();
  return run_gnuplot(script);
}

int eval(const Args& args) {
  const std::vector<std::string> files = split_list(args.get("data", ""));
  if (files.empty()) return fail(invalid_argument("--data HELD_OUT.csv is required"));
  auto given_k = args.get_int("top-k", kFastTopK, 1, 100000);
  auto curve = args.get_int("curve", 20, 1, 100000);
  if (!given_k.is_ok()) return fail(given_k.status());
  if (!curve.is_ok()) return fail(curve.status());
  auto data = read_sweep_csvs(files);
  if (!data.is_ok()) return fail(data.status());
  const bool transfer = args.flag("transfer");
  if (transfer && !args.has("model")) return fail(invalid_argument("--transfer scores a given --model MODEL"));
  auto model = args.has("model") ? CostModel::load(args.get("model", ""))
                                 : find_cost_model(data->meta.device, data->meta.backend_versions);
  if (!model.is_ok()) return fail(model.status());
  // Without --top-k, the k that --fast times with this model.
  const std::int64_t k = args.has("top-k") ? *given_k : (*model)->info().fast_k();
  auto result = evaluate_cost_model(**model, *data, int(k), int(*curve), transfer);
  if (!result.is_ok()) return fail(result.status());
  const EvalPoint& at = result->at_k;
  if (args.has("plot")) {
    const std::string title = (*model)->info().device_class + ": " + std::to_string(result->shapes.size()) +
                              " held-out shapes";
    if (Status drawn = plot(*result, args.get("plot", ""), title); !drawn.is_ok()) return fail(drawn);
  }
  if (args.flag("json")) {
    nlohmann::json shapes = nlohmann::json::array();
    for (const EvalShape& s : result->shapes) {
      shapes.push_back({{"problem", s.problem},
                        {"configs", s.configs},
                        {"best_us", s.best_us},
                        {"top_k_best_us", s.top_k_best_us},
                        {"quality", s.quality},
                        {"all_cost_us", s.all_cost_us},
                        {"top_k_cost_us", s.top_k_cost_us},
                        {"rank_us", s.rank_us}});
    }
    nlohmann::json curve_json = nlohmann::json::array();
    for (const EvalPoint& p : result->curve) curve_json.push_back(point_json(p));
    nlohmann::json out = point_json(at);
    out["data"] = files;
    out["model"] = args.has("model") ? args.get("model", "") : std::string("(shipped for the data's device)");
    out["device"] = data->meta.device;
    if (transfer) out["model_trained_on"] = (*model)->info().device;
    out["device_class"] = (*model)->info().device_class;
    out["shapes"] = result->shapes.size();
    out["shapes_in_training_left_out"] = result->shapes_in_training;
    out["curve"] = curve_json;
    out["per_shape"] = shapes;
    char band[32];
    std::snprintf(band, sizeof band, "%gx", result->family_band);
    out["family_band"] = result->family_band;
    out["method"] =
        "quality: geometric mean over held-out shapes of (fastest measured time of all configs / fastest among the "
        "choices a tuning at k times: the model's top k and the best-ranked config of each other kernel family "
        "predicted within " + std::string(band) + " of the top). time_fraction: simulated tuning time of those choices "
        "(ranking measured live, plus the sweep's measured per-config costs run through the autotuner's steps) over "
        "that of all configs, summed over shapes.";
    std::cout << out.dump(2) << "\n";
  } else {
    if (transfer) std::printf("scored across devices: trained on '%s', the sweeps' is '%s'\n",
                              (*model)->info().device.c_str(), data->meta.device.c_str());
    std::printf("%zu held-out shapes (%d trained-on shapes left out), top %d of each shape's choices timed,"
                " and the best of each other kernel family predicted within %gx:\n",
                result->shapes.size(), result->shapes_in_training, at.k, result->family_band);
    std::printf("  quality (exhaustive best / best of top %d): geometric mean %.4f, worst %.4f, best found in %d\n",
                at.k, at.quality_geomean, at.quality_min, at.shapes_with_best);
    std::printf("  tuning time: %.2f%% of exhaustive tuning\n", 100 * at.time_fraction);
    std::printf("  k:        ");
    for (const EvalPoint& p : result->curve) std::printf(" %6d", p.k);
    std::printf("\n  quality:  ");
    for (const EvalPoint& p : result->curve) std::printf(" %6.3f", p.quality_geomean);
    std::printf("\n  time %%:   ");
    for (const EvalPoint& p : result->curve) std::printf(" %6.2f", 100 * p.time_fraction);
    std::printf("\n");
  }
  return kExitOk;
}

int info(const Args& args, const std::string& path) {
  auto info = CostModel::read_info(path);
  if (!info.is_ok()) return fail(info.status());
  nlohmann::json out = {{"device", info->device},
                        {"device_class", info->device_class},
                        {"backend_versions", info->backend_versions},
                        {"backends", info->backends},
                        {"problem_kinds", info->problem_kinds},
                        {"features", info->features},
                        {"training_data", info->training_data},
                        {"training_rows", info->training_rows},
                        {"training_shapes", info->training_shapes.size()},
                        {"training_rmse_ln", info->training_rmse},
                        {"rounds", info->params.rounds},
                        {"max_depth", info->params.max_depth},
                        {"created_unix", info->created_unix},
                        {"fast_top_k", info->fast_k()},
                        {"fast_top_k_fitted", info->fast_top_k > 0},
                        {"fast_fit_quality", info->fast_fit_quality},
                        {"fast_fit_time_fraction", info->fast_fit_time_fraction},
                        {"usable_in_this_build", CostModel::built_in()}};
  if (!info->devices.empty()) out["devices"] = info->devices;
  if (args.flag("json")) {
    std::cout << out.dump(2) << "\n";
  } else {
    for (const auto& [key, value] : out.items()) std::cout << key << ": " << value.dump() << "\n";
  }
  return kExitOk;
}

int upgrade(int argc, char** argv) {
  if (argc < 4) return fail(invalid_argument("model upgrade needs a MODEL file"));
  for (int i = 3; i < argc; ++i) {
    auto was = CostModel::upgrade_file(argv[i]);
    if (!was.is_ok()) return fail(was.status());
    std::printf("%s: version %d -> %d\n", argv[i], *was, kCostModelVersion);
  }
  return kExitOk;
}

}  // namespace

int run_model(int argc, char** argv) {
  const std::vector<OptionSpec> specs = model_specs();
  if (asks_for_help(argc, argv)) {
    std::cout << usage("model train|eval|info|upgrade", kModelSummary, specs);
    return kExitOk;
  }
  if (argc < 3) return fail(invalid_argument("model needs a subcommand: train, eval, info MODEL or upgrade MODEL"));
  const std::string sub = argv[2];
  if (sub == "upgrade") return upgrade(argc, argv);
  if (sub != "train" && sub != "eval" && sub != "info") {
    return fail(invalid_argument("unknown model subcommand '" + sub + "' (see gemmtune model --help)"));
  }
  const bool takes_file = sub == "info";
  if (takes_file && (argc < 4 || std::string(argv[3]).rfind("--", 0) == 0)) {
    return fail(invalid_argument("model info needs a MODEL file"));
  }
  auto args = Args::parse("model " + sub, specs, argc, argv, takes_file ? 4 : 3);
  if (!args.is_ok()) return fail(args.status());
  if (sub == "train") return train(*args);
  if (sub == "eval") {
    if (!CostModel::built_in()) return fail(unsupported("model eval: " + CostModel::not_built_in_reason()));
    return eval(*args);
  }
  return info(*args, argv[3]);
}

}  // namespace gemmtune::cli
