// Who the autotuner's final round times (TuneOptions::finalists). The autotuner and the cost
// model's simulation of a tuning's time (model/evaluate.cc) both ask here, so the simulation
// follows the rule.
#pragma once

#include <algorithm>
#include <cstddef>
#include <type_traits>
#include <vector>

namespace gemmtune {

// The first of `items` for each value of key(item), in the items' order: each backend's lead
// (its first choice in the fixed order) when the key is the item's backend.
template <class T, class Key>
std::vector<T*> first_of_each(const std::vector<T*>& items, Key key) {
  std::vector<T*> firsts;
  std::vector<std::decay_t<std::invoke_result_t<Key&, T*>>> seen;
  for (T* item : items) {
    auto k = key(item);
    if (std::find(seen.begin(), seen.end(), k) != seen.end()) continue;
    seen.push_back(std::move(k));
    firsts.push_back(item);
  }
  return firsts;
}

// Who the final round times, fastest of the full timing first, each once:
// - the `finalists` fastest of `timed` (the choices timed in full; time(x) is x's full timing);
// - each backend's fastest of `timed` (key(x) is x's backend): our own configs often fill the
//   fastest few among themselves, within a percent of each other, and a library's best config
//   timed 1-2 % slow by one full timing was left out. At 2048³ on the 2-core VM that was oneDNN's
//   sgemm, 5 % faster than the packed kernel picked (bench/results/2026-11-23h-cpu-final-round).
// - each of `leads` (each backend's first choice in the fixed order, whatever became of it) that
//   was timed in full: a library's own first pick is always timed again beside the fastest,
//   since one full timing can misorder choices by more than the noise band.
template <class T, class Time, class Key>
std::vector<T*> final_round_members(std::vector<T*> timed, const std::vector<T*>& leads, int finalists, Time time,
                                    Key key) {
  std::stable_sort(timed.begin(), timed.end(), [&time](T* x, T* y) { return time(x) < time(y); });
  std::vector<T*> members(timed.begin(), timed.begin() + std::ptrdiff_t(std::min(timed.size(), std::size_t(finalists))));
  auto join = [&members](T* x) {
    if (std::find(members.begin(), members.end(), x) == members.end()) members.push_back(x);
  };
  for (T* fastest : first_of_each(timed, key)) join(fastest);
  for (T* lead : leads) {
    if (std::find(timed.begin(), timed.end(), lead) != timed.end()) join(lead);
  }
  return members;
}

}  // namespace gemmtune
