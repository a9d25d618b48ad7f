// gemmtune bench: gemmtune against each peer library in the same run, per shape and as
// geometric means.
#include <cstdio>
#include <iostream>

#include "commands.h"
#include "common.h"
#include "shapes.h"

namespace gemmtune::cli {

int run_bench(int argc, char** argv) {
  std::vector<OptionSpec> specs = {
      {"dtype", true, "--dtype T              f32 | f16 | bf16 | s8; default f32"},
      {"shapes", true, "--shapes S             small | skinny | llm | square | FILE of 'M N K' lines (required)"},
      {"layout", true, "--layout L             nn | nt | tn | tt; default nt for llm and skinny (C = A·Wᵀ), else nn"},
      {"peers", true, "--peers A,B            the peers to time (default: every peer library built in; they are\n"
                      "                       timed whatever --backends leaves gemmtune to choose among, so\n"
                      "                       --backends cpu shows gemmtune's own kernels alone against them)"},
      {"max-m", true, "--max-m M              llm set: largest M (default 256 on the CPU, 8192 on a GPU)"},
      {"max-square", true, "--max-square S         square set: largest size (default 2048 on the CPU, 4096 on a GPU)"},
      {"json", false, "--json                 print the results as JSON"},
  };
  for (OptionSpec& spec : session_options()) specs.push_back(spec);
  for (int i = 2; i < argc; ++i) {
    if (std::string(argv[i]) == "--help") {
      std::cout << usage("bench",
                         "Tunes each shape, then times gemmtune (dispatch included) against every peer backend,\n"
                         "interleaved in the same run, each peer at its fastest config. Ratios are peer time /\n"
                         "gemmtune time; 'best peer' is the fastest peer of each shape.",
                         specs);
      return kExitOk;
    }
  }
  auto args = Args::parse("bench", specs, argc, argv, 2);
  if (!args.is_ok()) return fail(args.status());
  if (!args->has("shapes")) return fail(invalid_argument("--shapes is required (small, skinny, llm, square or a file)"));
  auto dtype = parse_dtype(args->get("dtype", "f32"));
  if (!dtype.is_ok()) return fail(invalid_argument("--dtype: " + dtype.status().message()));
  const std::string set = args->get("shapes", "");
  const std::string layout = args->get("layout", set == "llm" || set == "skinny" ? "nt" : "nn");
  auto options = session_options_from(*args);
  if (!options.is_ok()) return fail(options.status());
  auto session = Session::create(*options);
  if (!session.is_ok()) return fail(session.status());
  // A 2-core CPU spends minutes on what a GPU does in milliseconds: smaller default sets.
  const bool gpu = (*session)->device().kind == DeviceKind::cuda;
  auto max_m = args->get_int("max-m", gpu ? 8192 : 256, 1);
  auto max_square = args->get_int("max-square", gpu ? 4096 : 2048, 1);
  if (!max_m.is_ok()) return fail(max_m.status());
  if (!max_square.is_ok()) return fail(max_square.status());
  auto shapes = shape_set(set, *max_m, *max_square);
  if (!shapes.is_ok()) return fail(shapes.status());

  const std::vector<std::string> peers = peer_backends(**session, split_list(args->get("peers", "")));
  if (peers.empty()) return fail(invalid_argument("--peers: none of these peer libraries is built in"));
  std::vector<ShapeComparison> rows;
  for (std::size_t i = 0; i < shapes->size(); ++i) {
    const Shape& s = (*shapes)[i];
    auto problem = Problem::create(s.m, s.n, s.k, *dtype, layout);
    if (!problem.is_ok()) return fail(invalid_argument("shape " + std::to_string(i + 1) + ": " + problem.status().message()));
    std::fprintf(stderr, "[%zu/%zu] %s\n", i + 1, shapes->size(), problem->describe().c_str());
    auto row = compare_with_peers(**session, *problem, peers, options->tuning.timing);
    if (!row.is_ok()) return fail(row.status());
    rows.push_back(*row);
  }
  if (args->flag("json")) {
    nlohmann::json out = comparison_json(rows);
    out["device"] = device_json((*session)->device());
    out["dtype"] = dtype_name(*dtype);
    out["layout"] = layout;
    out["shapes_set"] = set;
    out["backends"] = (*session)->backend_names();
    out["peers"] = peers;
    std::cout << out.dump(2) << "\n";
  } else {
    std::cout << comparison_table(rows);
  }
  return kExitOk;
}

}  // namespace gemmtune::cli
