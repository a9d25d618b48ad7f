#include "gemmtune/tune_report.h"

#include <algorithm>
#include <cstdio>
#include <numeric>

namespace gemmtune {

std::string_view choice_status_name(ChoiceStatus status) {
  switch (status) {
    case ChoiceStatus::ok: return "ok";
    case ChoiceStatus::skipped: return "skipped";
    case ChoiceStatus::prepare_failed: return "prepare_failed";
    case ChoiceStatus::run_failed: return "run_failed";
    case ChoiceStatus::wrong_result: return "wrong_result";
    case ChoiceStatus::pruned: return "pruned";
  }
  return "?";
}

std::string TuneReport::table() const {
  std::string out = "AUTOTUNE gemm " + problem + "\n";
  std::vector<std::size_t> order(choices.size());
  std::iota(order.begin(), order.end(), 0);
  // Timed choices fastest first, then the rest in their original order.
  std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
    const bool tx = choices[x].time_us >= 0 && choices[x].status == ChoiceStatus::ok;
    const bool ty = choices[y].time_us >= 0 && choices[y].status == ChoiceStatus::ok;
    if (tx != ty) return tx;
    return tx && choices[x].time_us < choices[y].time_us;
  });
  const double best_us = best >= 0 ? choices[std::size_t(best)].time_us : 0;
  char line[512];
  int timed = 0;
  for (std::size_t i : order) {
    const ChoiceReport& c = choices[i];
    const std::string config = c.config.to_string();
    if (c.time_us >= 0 && c.status == ChoiceStatus::ok) {
      ++timed;
      char final_round[48] = "";
      if (c.final_ratio > 0) {
        std::snprintf(final_round, sizeof final_round, "  final round %.3fx of %d", c.final_ratio, c.final_rounds);
      }
      // Preparing that took noticeable time (a JIT compile) is shown; a plan or a cached load is not.
      char prepared[32] = "";
      if (c.prepare_s >= 0.05) std::snprintf(prepared, sizeof prepared, "  prepared in %.2f s", c.prepare_s);
      std::snprintf(line, sizeof line, "  %s %-10s %-44s %12.2f us %6.1f%%%s%s\n", int(i) == best ? "*" : " ",
                    c.backend.c_str(), config.c_str(), c.time_us, best_us > 0 ? 100.0 * best_us / c.time_us : 0.0,
                    final_round, prepared);
    } else {
      std::snprintf(line, sizeof line, "    %-10s %-44s %s: %s\n", c.backend.c_str(), config.c_str(),
                    std::string(choice_status_name(c.status)).c_str(), c.reason.c_str());
      if (c.status == ChoiceStatus::pruned) ++timed;
    }
    out += line;
  }
  if (!selection.empty()) out += "choices: " + selection + "\n";
  if (store_hit) {
    out += "tuning store hit: no choice benchmarked\n";
  } else {
    std::snprintf(line, sizeof line, "%d choices benchmarked in %.2f s\n", timed, tuning_s);
    out += line;
  }
  return out;
}

}  // namespace gemmtune
