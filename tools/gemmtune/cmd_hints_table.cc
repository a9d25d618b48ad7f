// gemmtune hints-table: the table of Inductor's multi-kernel work. "before": a kernel tuned for
// one hint alone, run at every runtime size; "after": the multi-kernel op (one sub-kernel per
// hint, shapes routed), run at every runtime size; "best": what a full tuning of each runtime
// size reaches. Times in ms, and each cell over "best" round by round.
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <fstream>
#include <iostream>

#include "commands.h"
#include "common.h"
#include "gemmtune/op.h"

namespace gemmtune::cli {
namespace {

// A GemmOp's dispatch at fixed dims, as a GemmKernel for the session's timer.
class OpKernel final : public GemmKernel {
 public:
  OpKernel(GemmOp& op, std::int64_t m, std::int64_t n, std::int64_t k) : op_(op), m_(m), n_(n), k_(k) {}
  Status run(const void* a, const void* b, void* c, void* stream) override { return op_.run(m_, n_, k_, a, b, c, stream); }
  const std::string& backend() const override { return name_; }
  const KernelConfig& config() const override { return config_; }

 private:
  GemmOp& op_;
  std::int64_t m_, n_, k_;
  std::string name_ = "op";
  KernelConfig config_;
};

// A cell whose kernel cannot run that size: a cuBLASLt choice is "the heuristics' r-th algorithm",
// and a smaller or odd size may rank fewer than r. Printed "n/a", null in JSON, blank in plots.
constexpr double kCannotRun = std::numeric_limits<double>::quiet_NaN();

struct Table {
  std::vector<std::int64_t> hints, runtime;
  std::vector<std::vector<double>> before, after;  // [hint][runtime], ms
  std::vector<double> best;                          // [runtime], ms
  // [runtime]: "best"'s kernel timed again as one more candidate of the same interleaved run,
  // over "best" round by round: the A/A control, what one kernel reads against itself there.
  // A cell nearer 1 than this column's A/A spread says nothing.
  std::vector<double> aa_ratio;
  // [hint][runtime]: the cell's time over "best"'s, median_ratio_by_round: the ratio of two
  // medians carries whatever the machine did between the two samples of a round, and the
  // round's own ratio cancels it. What the table's ratios, its plot and `--json` report.
  std::vector<std::vector<double>> before_ratio, after_ratio;
  std::vector<std::string> best_pick;
  // [hint][runtime]: the hints whose sub-kernel served the op's cell ("256+1024" where two hints
  // picked one config), routed before the timing and serving after it (the in-use check, at
  // the warm-up's last call, may revisit the route and change it). An "after" cell then says
  // whether the route or the kernel's reading is what sets it apart from "best".
  std::vector<std::vector<std::string>> routed_first, routed_after;
  // [hint][runtime]: whether the sub-kernel serving the cell after the check is "best"'s own
  // kernel (the same backend and config): such a cell is an A/A reading, not a routing one.
  std::vector<std::vector<bool>> after_runs_best;
  // [hint][runtime]: what the in-use check did with the op's route of the cell: "held",
  // "revisited", "changed" (revisited onto another sub-kernel), "alone" (no rival could run
  // the size: not checked), or "" (not checked: another policy, or routed from the store).
  std::vector<std::vector<std::string>> in_use;
  // Over every op: routes the in-use check held, revisited, and changed on the revisit; routes
  // it left alone, no rival able to run their shape.
  std::int64_t held = 0, revisited = 0, changed = 0, alone = 0;
};

// An op's sub-kernel by the index its route gives; null for none (the op tuned the shape).
const SubKernel* sub_kernel_at(const GemmOp& op, int index) {
  if (index < 0 || std::size_t(index) >= op.sub_kernels().size()) return nullptr;
  return &op.sub_kernels()[std::size_t(index)];
}

// The hints of an op's sub-kernel, "256+1024".
std::string sub_kernel_hints(const GemmOp& op, int index) {
  const SubKernel* sub = sub_kernel_at(op, index);
  if (sub == nullptr) return "tuned";
  std::string text;
  for (std::int64_t h : sub->hints) {
    if (!text.empty()) text += '+';
    text += std::to_string(h);
  }
  return text;
}

std::string format_row(const std::string& label, const std::vector<double>& ms) {
  std::string row = label;
  char cell[32];
  for (double v : ms) {
    if (std::isnan(v)) {
      std::snprintf(cell, sizeof cell, " %10s", "n/a");
    } else {
      std::snprintf(cell, sizeof cell, " %10.4f", v);
    }
    row += cell;
  }
  return row + "\n";
}

// A colour-bar tic of gnuplot's at `ratio`, labelled "1.24x".
std::string cb_tic(double ratio) {
  char text[48];
  std::snprintf(text, sizeof text, "'%.2fx' %.4f", ratio, ratio);
  return text;
}

Status write_plot(const Table& t, const std::string& path, const std::string& title) {
  PlotScratch scratch;
  GEMMTUNE_RETURN_IF_ERROR(scratch.status());
  const std::string data = scratch.data();
  std::ofstream out(data);
  if (!out) return Status(ErrorCode::io_error, "cannot write " + data);
  // Two heat maps side by side of time / best time, so 1 is the best reachable. Both share one
  // colour scale, from 1 to the larger table's worst cell: with a scale each, 1.07x after was
  // as red as 4.00x before.
  double worst = 1;
  for (const auto* rows : {&t.before_ratio, &t.after_ratio}) {
    for (const auto& row : *rows) {
      for (double ratio : row) {
        if (std::isfinite(ratio)) worst = std::max(worst, ratio);
      }
    }
  }
  // The scale reaches at least 1.25x, so that a table whose cells are all within a few percent
  // of the best (the timing's noise) reads green rather than spreading its noise over the colours.
  worst = std::max(worst, 1.25);
  for (int table = 0; table < 2; ++table) {
    const auto& rows = table == 0 ? t.before_ratio : t.after_ratio;
    for (std::size_t h = 0; h < rows.size(); ++h) {
      for (std::size_t r = 0; r < t.runtime.size(); ++r) {
        const double ratio = rows[h][r];
        out << r << ' ' << h << ' ';
        if (std::isnan(ratio)) {
          out << "NaN\n";  // gnuplot leaves it blank
        } else {
          out << ratio << '\n';
        }
      }
      out << '\n';
    }
    out << "\n\n";
  }
  out.close();
  std::string ylabels, xlabels;
  for (std::size_t h = 0; h < t.hints.size(); ++h) ylabels += (h ? ", " : "") + std::string("'") + std::to_string(t.hints[h]) + "' " + std::to_string(h);
  for (std::size_t r = 0; r < t.runtime.size(); ++r) xlabels += (r ? ", " : "") + std::string("'") + std::to_string(t.runtime[r]) + "' " + std::to_string(r);
  const std::string script = scratch.script();
  std::ofstream gp(script);
  gp << "set terminal pngcairo size 1100,480 noenhanced\nset output '" << path << "'\n"
     << "set multiplot layout 1,2 title '" << title << ": time / best at that size'\n"
     << "set xtics (" << xlabels << ")\nset ytics (" << ylabels << ")\n"
     << "set xlabel 'runtime size'\nset ylabel 'hint'\nset cbrange [1:" << worst << "]\nset logscale cb\n"
     << "set cbtics (" << cb_tic(1) << ", " << cb_tic(std::sqrt(worst)) << ", " << cb_tic(worst) << ")\n"
     << "set palette defined (0 '#1a9850', 0.3 '#fee08b', 1 '#d73027')\n"
     << "set title 'before: one kernel per hint'\nplot '" << data << "' index 0 using 1:2:3 with image notitle, '' index 0 using 1:2:(sprintf('%.2f',$3)) with labels notitle\n"
     << "set title 'after: multi-kernel op'\nplot '" << data << "' index 1 using 1:2:3 with image notitle, '' index 1 using 1:2:(sprintf('%.2f',$3)) with labels notitle\n"
     << "unset multiplot\n";
  gp.close();
  return run_gnuplot(script);
}

}  // namespace

int run_hints_table(int argc, char** argv) {
  std::vector<OptionSpec> specs = {
      {"dtype", true, "--dtype T              f32 | f16 | bf16 | s8; default f32"},
      {"hints", true, "--hints H,H,...        size hints of the op (default 64,256,4096)"},
      {"runtime", true, "--runtime R,R,...      runtime sizes to run at (default: the hints)"},
      {"n", true, "--n N                  fix n (default: dynamic, square problems)"},
      {"k", true, "--k K                  fix k (default: dynamic)"},
      {"layout", true, "--layout L             nn | nt | tn | tt (n row-major, t column-major); default nn\n"
                       "                       (nt: C = X·Wᵀ, a linear layer's weights as PyTorch stores them)"},
      {"route", true, "--route R              benchmark | distance (default benchmark)"},
      {"json", false, "--json                 print the tables as JSON"},
      {"plot", true, "--plot FILE.png        draw both tables as heat maps (gnuplot)"},
      {"bench-samples", true, "--bench-samples N      rounds of each runtime size's interleaved timing (default:\n"
                              "                       --samples, which tuning and routing use): one cell against\n"
                              "                       the same kernel scatters by sd 0.02 at 7 rounds on a 2-core VM"},
  };
  for (OptionSpec& spec : session_options()) specs.push_back(spec);
  if (asks_for_help(argc, argv)) {
    std::cout << usage("hints-table",
                       "The multi-kernel table: a kernel tuned for each hint alone run at every runtime size\n"
                       "(before), the multi-kernel op at every runtime size (after), and the best a full\n"
                       "tuning of each runtime size reaches. Each size is tuned once (or loaded from the\n"
                       "store) and shared by the three, so a size equal to a hint runs one kernel in each\n"
                       "column; with --cache off a scratch store holds the tunings for the run. Each size's\n"
                       "run times best's kernel twice: the second over the first (\"A/A\") is what one kernel\n"
                       "reads against itself there, the table's resolution. Times in ms.",
                       specs);
    return kExitOk;
  }
  auto args = Args::parse("hints-table", specs, argc, argv, 2);
  if (!args.is_ok()) return fail(args.status());
  auto dtype = parse_dtype(args->get("dtype", "f32"));
  if (!dtype.is_ok()) return fail(invalid_argument("--dtype: " + dtype.status().message()));
  auto hints = args->get_int_list("hints", {64, 256, 4096});
  if (!hints.is_ok()) return fail(hints.status());
  auto runtime = args->get_int_list("runtime", *hints);
  if (!runtime.is_ok()) return fail(runtime.status());
  auto n = args->get_int("n", kDynamic, 1);
  auto k = args->get_int("k", kDynamic, 1);
  if (!n.is_ok()) return fail(n.status());
  if (!k.is_ok()) return fail(k.status());
  const std::string layout = args->get("layout", "nn");
  auto layouts = parse_layout_letters(layout);
  if (!layouts.is_ok()) return fail(invalid_argument("--layout: " + layouts.status().message()));
  auto route = Route::parse(args->get("route", "benchmark"));
  if (!route.is_ok()) return fail(invalid_argument("--route: " + route.status().message()));
  if (route->policy != RoutePolicy::benchmark && route->policy != RoutePolicy::distance) {
    return fail(invalid_argument("--route: hints-table compares the benchmark and distance routes only"));
  }
  auto options = session_options_from(*args);
  if (!options.is_ok()) return fail(options.status());
  // Each size is tuned once and its pick shared by the columns, as a program's session shares
  // it: at a runtime size equal to a hint, "best", the hint's "before" kernel and the op's
  // sub-kernel are then one kernel, and the table shows routing, not the spread between
  // separate tunings of one shape. Without a store (--cache off), a scratch file holds them.
  std::string scratch_store;
  if (options->store.mode == StoreMode::off || options->store.resolved_path() == "off") {
    char name[] = "/tmp/gemmtune-hints-XXXXXX";
    const int fd = mkstemp(name);
    if (fd < 0) return fail(Status(ErrorCode::io_error, "cannot create a scratch tuning store in /tmp"));
    close(fd);
    scratch_store = name;
    options->store.path = scratch_store;
    options->store.mode = StoreMode::read_write;
    options->store.redis_url.clear();
  }
  struct RemoveScratch {
    const std::string& path;
    ~RemoveScratch() {
      if (path.empty()) return;
      for (const char* suffix : {"", "-wal", "-shm"}) std::remove((path + suffix).c_str());
    }
  } remove_scratch{scratch_store};
  auto session = Session::create(*options);
  if (!session.is_ok()) return fail(session.status());

  ProblemSpec family;
  family.m = kDynamic;
  family.n = *n;
  family.k = *k;
  family.a_type = family.b_type = *dtype;
  family.a_layout = layouts->first;
  family.b_layout = layouts->second;
  family.c_type = *dtype == DType::s8 ? DType::s32 : *dtype;
  Table table;
  table.hints = *hints;
  table.runtime = *runtime;
  TimingOptions timing = options->tuning.timing;
  auto table_samples = args->get_int("bench-samples", timing.samples, 1, 1000);
  if (!table_samples.is_ok()) return fail(table_samples.status());
  timing.samples = int(*table_samples);
  // The ops' in-use check times the warm-up's calls: enough of them for a median past the
  // first, cold call.
  timing.warmup_runs = std::max(timing.warmup_runs, 8);
  auto dims_at = [&](std::int64_t size) {
    return std::array<std::int64_t, 3>{size, *n == kDynamic ? size : *n, *k == kDynamic ? size : *k};
  };
  auto problem_at = [&](std::int64_t size) {
    ProblemSpec spec = family;
    const auto d = dims_at(size);
    spec.m = d[0];
    spec.n = d[1];
    spec.k = d[2];
    return Problem::create(spec);
  };

  // Tunings first: the best pick at each runtime size, the pick of each hint alone, and one op
  // per row (its primary hint first in its list). Then the cells of each runtime size are timed
  // together, interleaved in one run (shared/benchmarking.md), so that the ratios between
  // "before", "after" and "best" are free of the machine's drift between separate timings.
  std::vector<ChoiceReport> best_picks, hint_picks;
  for (std::int64_t r : table.runtime) {
    std::fprintf(stderr, "best: tuning size %lld\n", (long long)r);
    auto problem = problem_at(r);
    if (!problem.is_ok()) return fail(invalid_argument(problem.status().message()));
    auto report = (*session)->tune_or_load(*problem);
    if (!report.is_ok()) return fail(report.status());
    best_picks.push_back(*report->best_choice());
    table.best_pick.push_back(report->best_choice()->backend + " " + report->best_choice()->config.to_string());
  }
  for (std::int64_t h : table.hints) {
    std::fprintf(stderr, "before: tuning hint %lld alone\n", (long long)h);
    auto hint_problem = problem_at(h);
    if (!hint_problem.is_ok()) return fail(invalid_argument(hint_problem.status().message()));
    auto report = (*session)->tune_or_load(*hint_problem);
    if (!report.is_ok()) return fail(report.status());
    hint_picks.push_back(*report->best_choice());
  }
  std::vector<std::unique_ptr<GemmOp>> ops;
  for (std::int64_t h : table.hints) {
    std::fprintf(stderr, "after: multi-kernel op, hint %lld first\n", (long long)h);
    GemmOpOptions op_options;
    op_options.hints = {h};
    for (std::int64_t other : table.hints) {
      if (other != h) op_options.hints.push_back(other);
    }
    op_options.route = *route;
    // The table shows a shape in use, after the benchmark route's in-use check (and its
    // revisit where the check found the route slower than its rival). At the op's default (the
    // 64th call) a revisit fell inside the timer's calibration, whose batch then read
    // milliseconds for a 2.5 us kernel: the check comes at the warm-up's last call instead.
    op_options.revisit_after_calls = timing.warmup_runs;
    auto op = GemmOp::create(**session, family, op_options);
    if (!op.is_ok()) return fail(op.status());
    ops.push_back(std::move(op).value());
  }
  const std::size_t hint_count = table.hints.size();
  table.before.assign(hint_count, std::vector<double>(table.runtime.size(), kCannotRun));
  table.after.assign(hint_count, std::vector<double>(table.runtime.size(), kCannotRun));
  table.before_ratio = table.before;
  table.after_ratio = table.after;
  table.routed_first.assign(hint_count, std::vector<std::string>(table.runtime.size()));
  table.routed_after = table.routed_first;
  table.in_use = table.routed_first;
  table.after_runs_best.assign(hint_count, std::vector<bool>(table.runtime.size(), false));
  // Each op's check counters, read around a runtime size's routing and timing: their change is
  // what the check did with that cell.
  auto counters = [&](const GemmOp& op) {
    return std::array<std::int64_t, 4>{op.routes_held_in_use(), op.routes_revisited(), op.routes_changed_on_revisit(),
                                       op.routes_alone()};
  };
  auto outcome = [](const std::array<std::int64_t, 4>& before, const std::array<std::int64_t, 4>& after) {
    if (after[2] > before[2]) return "changed";
    if (after[1] > before[1]) return "revisited";
    if (after[0] > before[0]) return "held";
    if (after[3] > before[3]) return "alone";
    return "";
  };
  for (std::size_t ri = 0; ri < table.runtime.size(); ++ri) {
    const std::int64_t r = table.runtime[ri];
    std::fprintf(stderr, "timing size %lld: best, %zu before, %zu after, interleaved\n", (long long)r, hint_count,
                 hint_count);
    auto problem = problem_at(r);
    std::vector<std::unique_ptr<GemmKernel>> kernels;
    std::vector<std::unique_ptr<OpKernel>> op_kernels;
    std::vector<GemmKernel*> timed;
    // Best's kernel, prepared afresh and added to the run: first, and again last (the A/A control).
    auto add_best = [&]() -> Status {
      auto best = (*session)->kernel(*problem, best_picks[ri].backend, best_picks[ri].config);
      if (!best.is_ok()) return best.status();
      kernels.push_back(std::move(best).value());
      timed.push_back(kernels.back().get());
      return Status::ok();
    };
    if (Status added = add_best(); !added.is_ok()) return fail(added);
    std::vector<int> before_slot(hint_count, -1);
    for (std::size_t h = 0; h < hint_count; ++h) {
      auto kernel = (*session)->kernel(*problem, hint_picks[h].backend, hint_picks[h].config);
      if (!kernel.is_ok()) continue;  // the hint's kernel cannot run this size: n/a
      before_slot[h] = int(timed.size());
      kernels.push_back(std::move(kernel).value());
      timed.push_back(kernels.back().get());
    }
    const auto d = dims_at(r);
    const std::size_t first_after = timed.size();
    std::vector<std::array<std::int64_t, 4>> counted;
    for (const auto& op : ops) counted.push_back(counters(*op));
    for (std::size_t h = 0; h < hint_count; ++h) {
      // Routed first (untimed), as a program's first call of the shape would be.
      auto routed = ops[h]->route(d[0], d[1], d[2]);
      if (!routed.is_ok()) return fail(routed.status());
      table.routed_first[h][ri] = sub_kernel_hints(*ops[h], *routed);
      op_kernels.push_back(std::make_unique<OpKernel>(*ops[h], d[0], d[1], d[2]));
      timed.push_back(op_kernels.back().get());
    }
    const std::size_t aa_slot = timed.size();
    if (Status added = add_best(); !added.is_ok()) return fail(added);
    auto stats = (*session)->time_kernels(*problem, timed, timing);
    for (const auto& stat : stats) {
      if (!stat.is_ok()) return fail(stat.status());
    }
    auto ms = [&](std::size_t slot) { return stats[slot]->median_us / 1000.0; };
    auto over_best = [&](std::size_t slot) { return median_ratio_by_round(stats[slot]->sample_us, stats[0]->sample_us); };
    table.best.push_back(ms(0));
    table.aa_ratio.push_back(over_best(aa_slot));
    for (std::size_t h = 0; h < hint_count; ++h) {
      if (before_slot[h] >= 0) {
        table.before[h][ri] = ms(std::size_t(before_slot[h]));
        table.before_ratio[h][ri] = over_best(std::size_t(before_slot[h]));
      }
      table.after[h][ri] = ms(first_after + h);
      table.after_ratio[h][ri] = over_best(first_after + h);
      auto serving = ops[h]->route(d[0], d[1], d[2]);
      if (!serving.is_ok()) return fail(serving.status());
      table.routed_after[h][ri] = sub_kernel_hints(*ops[h], *serving);
      const SubKernel* sub = sub_kernel_at(*ops[h], *serving);
      table.after_runs_best[h][ri] =
          sub != nullptr && sub->backend == best_picks[ri].backend && sub->config == best_picks[ri].config;
      table.in_use[h][ri] = outcome(counted[h], counters(*ops[h]));
    }
  }

  for (const auto& op : ops) {
    table.held += op->routes_held_in_use();
    table.alone += op->routes_alone();
    table.revisited += op->routes_revisited();
    table.changed += op->routes_changed_on_revisit();
  }

  const std::string title = std::string(dtype_name(*dtype)) + " " + layout + " on " +
                            (*session)->device().name + ", route " + route->to_string();
  if (args->has("plot")) {
    Status plotted = write_plot(table, args->get("plot", ""), title);
    if (!plotted.is_ok()) return fail(plotted);
  }
  if (args->flag("json")) {
    nlohmann::json out = {{"hints", table.hints},     {"runtime", table.runtime}, {"before", table.before},
                          {"after", table.after},     {"best", table.best},       {"best_pick", table.best_pick},
                          {"before_ratio", table.before_ratio}, {"after_ratio", table.after_ratio},
                          {"route", route->to_string()}, {"dtype", dtype_name(*dtype)},
                          {"layout", layout}, {"bench_samples", timing.samples},
                          {"routed_first", table.routed_first}, {"routed_after", table.routed_after},
                          {"aa_ratio", table.aa_ratio}, {"after_runs_best", table.after_runs_best},
                          {"in_use", table.in_use},
                          {"in_use_check", {{"held", table.held}, {"revisited", table.revisited},
                                            {"changed", table.changed}, {"alone", table.alone}}},
                          {"device", device_json((*session)->device())}, {"unit", "ms"},
                          {"null", "the hint's kernel cannot run that size"}};
    std::cout << out.dump(2) << "\n";
    return kExitOk;
  }
  std::string header = "compiled for hint   ";
  char cell[32];
  for (std::int64_t r : table.runtime) {
    std::snprintf(cell, sizeof cell, " %10s", ("run " + std::to_string(r)).c_str());
    header += cell;
  }
  // The "before" rows, then the "after" rows, of times or of ratios.
  auto print_rows = [&](const std::vector<std::vector<double>>& before, const std::vector<std::vector<double>>& after) {
    for (const auto* rows : {&before, &after}) {
      for (std::size_t h = 0; h < table.hints.size(); ++h) {
        std::snprintf(cell, sizeof cell, "%-8s%-11lld", rows == &before ? "before:" : "after:", (long long)table.hints[h]);
        std::cout << format_row(cell, (*rows)[h]);
      }
    }
  };
  std::cout << title << " (ms)\n" << header << "\n";
  print_rows(table.before, table.after);
  std::cout << format_row("best               ", table.best);
  std::cout << "over best, round by round (the median of each round's ratio)\n";
  print_rows(table.before_ratio, table.after_ratio);
  std::cout << format_row("A/A: best again    ", table.aa_ratio);
  std::cout << "after: the hints whose kernel served each cell (a>b: routed to a, then to b at the revisit;\n"
               "=: best's own kernel, an A/A reading)\n";
  for (std::size_t h = 0; h < table.hints.size(); ++h) {
    std::snprintf(cell, sizeof cell, "route:  %-11lld", (long long)table.hints[h]);
    std::string row = cell;
    for (std::size_t r = 0; r < table.runtime.size(); ++r) {
      const std::string& first = table.routed_first[h][r];
      const std::string& after = table.routed_after[h][r];
      const std::string mark = table.after_runs_best[h][r] ? "=" : "";
      std::snprintf(cell, sizeof cell, " %10s", (mark + (first == after ? after : first + ">" + after)).c_str());
      row += cell;
    }
    std::cout << row << "\n";
  }
  std::cout << "in-use check (the benchmark route's, in the warm-up): " << table.held << " held, " << table.revisited
            << " revisited, " << table.changed << " of those changed; " << table.alone
            << " not checked, no rival able to run their shape\n";
  return kExitOk;
}

}  // namespace gemmtune::cli
