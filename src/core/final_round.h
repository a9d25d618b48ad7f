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

// The `finalists` fastest of `timed` (the choices timed in full; time(x) is x's full timing),
// and each of `leads` (each backend's first choice in the fixed order, whatever became of it)
// that was timed in full: a library's own first pick is always timed again beside the fastest,
// since one full timing can misorder choices by more than the noise band. Fastest first, then
// the leads that join.
template <class T, class Time>
std::vector<T*> final_round_members(std::vector<T*> timed, const std::vector<T*>& leads, int finalists, Time time) {
  std::stable_sort(timed.begin(), timed.end(), [&time](T* x, T* y) { return time(x) < time(y); });
  std::vector<T*> members(timed.begin(), timed.begin() + std::ptrdiff_t(std::min(timed.size(), std::size_t(finalists))));
  for (T* lead : leads) {
    const bool timed_in_full = std::find(timed.begin(), timed.end(), lead) != timed.end();
    if (timed_in_full && std::find(members.begin(), members.end(), lead) == members.end()) members.push_back(lead);
  }
  return members;
}

}  // namespace gemmtune
