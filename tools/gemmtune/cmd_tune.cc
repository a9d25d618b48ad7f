// gemmtune tune: tune one problem and show every choice.
#include <iostream>

#include "commands.h"
#include "common.h"

namespace gemmtune::cli {
namespace {

std::vector<OptionSpec> tune_specs() {
  std::vector<OptionSpec> specs = {
      {"m", true, "--m M                  rows of A and C (required)"},
      {"n", true, "--n N                  columns of B and C (required)"},
      {"k", true, "--k K                  columns of A, rows of B (required)"},
      {"dtype", true, "--dtype T              f32 | f16 | bf16 | s8 (s8 gives s32 output); default f32"},
      {"out-dtype", true, "--out-dtype T          output dtype (default: f32→f32, f16→f16, bf16→bf16, s8→s32)"},
      {"layout", true, "--layout L             nn | nt | tn | tt (n row-major, t column-major); default nn"},
      {"lda", true, "--lda N                leading dimension of A (default tight)"},
      {"ldb", true, "--ldb N                leading dimension of B (default tight)"},
      {"ldc", true, "--ldc N                leading dimension of C (default tight)"},
      {"alpha", true, "--alpha X              default 1"},
      {"beta", true, "--beta X               default 0"},
      {"json", false, "--json                 print the report as JSON"},
      {"retune", false, "--retune               tune even when the store holds a pick (and overwrite it)"},
  };
  for (OptionSpec& spec : session_options()) specs.push_back(spec);
  return specs;
}

Result<Problem> problem_from(const Args& args) {
  ProblemSpec spec;
  GEMMTUNE_ASSIGN_OR_RETURN(spec.m, args.require_int("m"));
  GEMMTUNE_ASSIGN_OR_RETURN(spec.n, args.require_int("n"));
  GEMMTUNE_ASSIGN_OR_RETURN(spec.k, args.require_int("k"));
  auto dtype = parse_dtype(args.get("dtype", "f32"));
  if (!dtype.is_ok()) return invalid_argument("--dtype: " + dtype.status().message());
  spec.a_type = spec.b_type = *dtype;
  spec.c_type = *dtype == DType::s8 ? DType::s32 : *dtype;
  if (args.has("out-dtype")) {
    auto out = parse_dtype(args.get("out-dtype", ""));
    if (!out.is_ok()) return invalid_argument("--out-dtype: " + out.status().message());
    spec.c_type = *out;
  }
  auto layouts = parse_layout_letters(args.get("layout", "nn"));
  if (!layouts.is_ok()) return invalid_argument("--layout: " + layouts.status().message());
  spec.a_layout = layouts->first;
  spec.b_layout = layouts->second;
  GEMMTUNE_ASSIGN_OR_RETURN(spec.lda, args.get_int("lda", 0, 1));
  GEMMTUNE_ASSIGN_OR_RETURN(spec.ldb, args.get_int("ldb", 0, 1));
  GEMMTUNE_ASSIGN_OR_RETURN(spec.ldc, args.get_int("ldc", 0, 1));
  GEMMTUNE_ASSIGN_OR_RETURN(spec.alpha, args.get_double("alpha", 1.0));
  GEMMTUNE_ASSIGN_OR_RETURN(spec.beta, args.get_double("beta", 0.0));
  auto problem = Problem::create(spec);
  if (!problem.is_ok()) return invalid_argument("invalid problem: " + problem.status().message());
  return problem;
}

}  // namespace

int run_tune(int argc, char** argv) {
  const std::vector<OptionSpec> specs = tune_specs();
  if (asks_for_help(argc, argv)) {
    std::cout << usage("tune",
                       "Tunes one GEMM problem: every backend's configs are verified against the reference\n"
                       "and timed; the fastest correct one is picked and stored. A problem the tuning store\n"
                       "already holds is answered from it (\"store_hit\": true) unless --retune is given.",
                       specs);
    return kExitOk;
  }
  auto args = Args::parse("tune", specs, argc, argv, 2);
  if (!args.is_ok()) return fail(args.status());
  auto problem = problem_from(*args);
  if (!problem.is_ok()) return fail(problem.status());
  auto options = session_options_from(*args);
  if (!options.is_ok()) return fail(options.status());
  auto session = Session::create(*options);
  if (!session.is_ok()) return fail(session.status());
  auto report = args->flag("retune") ? (*session)->tune(*problem) : (*session)->tune_or_load(*problem);
  if (!report.is_ok()) return fail(report.status());
  if (args->flag("json")) {
    nlohmann::json out = report_json(*report);
    out["problem"] = problem_json(*problem);
    out["device"] = device_json((*session)->device());
    std::cout << out.dump(2) << "\n";
  } else {
    std::cout << report->table();
  }
  return kExitOk;
}

}  // namespace gemmtune::cli
