// gemmtune bench: gemmtune against each peer library in the same run, per shape and as
// geometric means.
#include <cstdio>
#include <iostream>

#include "commands.h"
#include "common.h"
#include "peer_comparison.h"
#include "shapes.h"

namespace gemmtune::cli {

int run_bench(int argc, char** argv) {
  std::vector<OptionSpec> specs = shape_options();
  specs.push_back({"json", false, "--json                 print the results as JSON"});
  specs.push_back({"peers", true, "--peers A,B            the peers to time (default: every peer library built in; they are\n"
                                  "                       timed whatever --backends leaves gemmtune to choose among, so\n"
                                  "                       --backends cpu shows gemmtune's own kernels alone against them)"});
  specs.push_back({"bench-samples", true, "--bench-samples N      timing samples of the comparison after tuning (default:\n"
                                          "                       --samples, which tuning uses): more where gemmtune and a\n"
                                          "                       peer are a few percent apart"});
  specs.push_back({"out", true, "--out FILE             write the results (JSON with --json, else the table) to FILE,\n"
                                "                       rewritten after each shape, so a run stopped part way keeps\n"
                                "                       the shapes it finished (its JSON says \"complete\": false)"});
  for (OptionSpec& spec : session_options()) specs.push_back(spec);
  if (asks_for_help(argc, argv)) {
    std::cout << usage("bench",
                       "Tunes each shape, then times gemmtune (dispatch included) against every peer backend,\n"
                       "interleaved in the same run, each peer at its fastest config. Ratios are peer time /\n"
                       "gemmtune time; 'best peer' is the fastest peer of each shape. 'per call' compares with\n"
                       "each peer called the way a program that learns the shape at the call calls it, as\n"
                       "gemmtune's dispatch is (libxsmm: its lookup on every call; oneDNN: sgemm); --json adds\n"
                       "gemmtune's pick called as a handle against the peers' handles (best_peer_kernel).",
                       specs);
    return kExitOk;
  }
  auto args = Args::parse("bench", specs, argc, argv, 2);
  if (!args.is_ok()) return fail(args.status());
  auto options = session_options_from(*args);
  if (!options.is_ok()) return fail(options.status());
  auto session = Session::create(*options);
  if (!session.is_ok()) return fail(session.status());
  auto shapes = shapes_from(*args, (*session)->device().kind == DeviceKind::cuda);
  if (!shapes.is_ok()) return fail(shapes.status());

  TimingOptions comparison = options->tuning.timing;
  auto bench_samples = args->get_int("bench-samples", comparison.samples, 1, 1000);
  if (!bench_samples.is_ok()) return fail(bench_samples.status());
  comparison.samples = int(*bench_samples);

  const std::vector<std::string> peers = peer_backends(**session, split_list(args->get("peers", "")));
  if (peers.empty()) {
    return fail(invalid_argument("--peers '" + args->get("peers", "") + "': none of these peer libraries is built in"));
  }
  const bool json = args->flag("json");
  auto render = [&](const std::vector<ShapeComparison>& rows) {
    if (!json) return comparison_table(rows);
    nlohmann::json out = comparison_json(rows);
    out["device"] = device_json((*session)->device());
    out["dtype"] = dtype_name(shapes->dtype);
    out["layout"] = shapes->layout;
    out["shapes_set"] = shapes->set;
    out["backends"] = (*session)->backend_names();
    out["peers"] = peers;
    out["tuning_samples"] = options->tuning.timing.samples;
    out["bench_samples"] = comparison.samples;
    out["shapes_planned"] = shapes->problems.size();
    out["complete"] = rows.size() == shapes->problems.size();
    return out.dump(2) + "\n";
  };
  const std::string out_path = args->get("out", "");
  auto save = [&](const std::vector<ShapeComparison>& rows) {
    return out_path.empty() ? Status::ok() : replace_file(out_path, render(rows));
  };
  std::vector<ShapeComparison> rows;
  // Saved before the first shape too, so a path that cannot be written fails at once, not
  // after the first tuning.
  if (Status saved = save(rows); !saved.is_ok()) return fail(saved);
  for (std::size_t i = 0; i < shapes->problems.size(); ++i) {
    const Problem& problem = shapes->problems[i];
    std::fprintf(stderr, "[%zu/%zu] %s\n", i + 1, shapes->problems.size(), problem.describe().c_str());
    auto row = compare_with_peers(**session, problem, peers, comparison);
    if (!row.is_ok()) return fail(row.status());
    rows.push_back(*row);
    if (Status saved = save(rows); !saved.is_ok()) return fail(saved);
  }
  if (out_path.empty()) std::cout << render(rows);
  return kExitOk;
}

}  // namespace gemmtune::cli
