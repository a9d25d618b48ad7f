#include "choice_selection.h"

#include <algorithm>
#include <cstdio>
#include <numeric>

#include "gemmtune/cost_model.h"
#include "gemmtune/lut.h"
#include "../model/features.h"  // problem_kind
#include "model_shortlist.h"

namespace gemmtune {
namespace {

std::string_view space_name(SearchSpace space) { return space == SearchSpace::exhaustive ? "exhaustive" : "default"; }

std::size_t count(const std::vector<std::vector<KernelConfig>>& configs) {
  std::size_t total = 0;
  for (const auto& list : configs) total += list.size();
  return total;
}

bool contains(const std::vector<KernelConfig>& list, const KernelConfig& config) {
  return std::find(list.begin(), list.end(), config) != list.end();
}

// The lookup table's configs for this problem that a wanted backend of this build can
// implement, in the table's order; `dropped` says why the others were left out.
std::vector<SelectedChoice> usable_lut_choices(const LutEntry& entry, const Problem& problem,
                                               const BackendList& backends, const TuneOptions& options,
                                               std::string& dropped) {
  std::vector<SelectedChoice> usable;
  for (const LutChoice& choice : entry.configs) {
    std::size_t b = 0;
    while (b < backends.size() && backends[b]->name() != choice.backend) ++b;
    std::string why;
    if (b == backends.size()) {
      why = "backend absent here";
    } else if (!backend_wanted(options, choice.backend)) {
      why = "backend not wanted";
    } else if (Status can = backends[b]->can_implement(problem, choice.config); !can.is_ok()) {
      why = can.message();
    } else {
      usable.push_back({b, choice.config});
      continue;
    }
    dropped += (dropped.empty() ? "" : "; ") + choice.backend + " " + choice.config.to_string() + ": " + why;
  }
  return usable;
}

// kShortlistFamilyBand as the note gives it: "1.5x".
std::string band_text() {
  char text[32];
  std::snprintf(text, sizeof(text), "%gx", kShortlistFamilyBand);
  return text;
}

std::string lut_note(const std::string& what, const std::string& dropped) {
  return "lookup table: " + what + (dropped.empty() ? "" : " (left out: " + dropped + ")");
}

// Ranks the implementable choices of `offered` with the model; its shortlist (model_shortlist:
// the top k and the best of each family predicted close to the first), and every choice of the
// backends it does not rank, go to `out.configs`, the rest of the ranking to `out.reserve`;
// `families_added` counts the shortlist's choices beyond the top k. False (with `why`) when
// the model cannot rank them.
bool rank_with_model(const CostModel& model, const Problem& problem, const BackendList& backends,
                     const std::vector<std::vector<KernelConfig>>& offered, int k, ChoiceSelection& out,
                     int& families_added, std::string& why) {
  std::vector<SelectedChoice> ranked_choices;
  std::vector<ModelChoice> model_choices;
  for (std::size_t b = 0; b < backends.size(); ++b) {
    const bool ranked = model.ranks(backends[b]->name());
    for (const KernelConfig& config : offered[b]) {
      if (!ranked) {
        out.configs[b].push_back(config);
        continue;
      }
      // Whatever cannot run is left out of the ranking, so it takes no place in the top k.
      if (!backends[b]->can_implement(problem, config).is_ok()) continue;
      ranked_choices.push_back({b, config});
      model_choices.push_back({std::string(backends[b]->name()), config});
    }
  }
  auto predicted = model.predict(problem, model_choices);
  if (!predicted.is_ok()) {
    why = predicted.status().message();
    return false;
  }
  std::vector<std::size_t> order(ranked_choices.size());
  std::iota(order.begin(), order.end(), 0);
  // Stable: equal predictions keep the fixed choice order.
  std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return (*predicted)[x] < (*predicted)[y]; });
  const std::vector<std::size_t> shortlist = model_shortlist(
      order.size(), std::size_t(std::max(k, 0)),
      [&](std::size_t r) {
        const SelectedChoice& choice = ranked_choices[order[r]];
        return kernel_family(backends[choice.backend]->name(), choice.config);
      },
      [&](std::size_t r) { return (*predicted)[order[r]]; });
  std::vector<bool> listed(order.size(), false);
  for (std::size_t r : shortlist) listed[r] = true;
  for (std::size_t r = 0; r < order.size(); ++r) {
    const SelectedChoice& choice = ranked_choices[order[r]];
    if (listed[r]) {
      out.configs[choice.backend].push_back(choice.config);
    } else {
      out.reserve.push_back(choice);
    }
  }
  families_added = shortlist.size() > std::size_t(k) ? int(shortlist.size()) - k : 0;
  // Back into the fixed order of each backend's list, so that ties break as in a full tuning.
  for (std::size_t b = 0; b < backends.size(); ++b) {
    std::vector<KernelConfig> ordered;
    for (const KernelConfig& config : offered[b]) {
      if (contains(out.configs[b], config)) ordered.push_back(config);
    }
    out.configs[b] = std::move(ordered);
  }
  out.batch = std::size_t(k);
  return true;
}

}  // namespace

bool backend_wanted(const TuneOptions& options, std::string_view backend) {
  if (options.backends.empty()) return true;
  for (const std::string& name : options.backends) {
    if (name == backend) return true;
  }
  return false;
}

ChoiceSelection select_choices(const Problem& problem, const DeviceInfo& device, const BackendList& backends,
                               const TuneOptions& options) {
  ChoiceSelection out;
  out.configs.resize(backends.size());
  out.offered.assign(backends.size(), ChoiceSelection::kNotAsked);
  const LutEntry* entry = options.lut ? options.lut->find(device, ProblemKey::of(problem)) : nullptr;
  std::vector<SelectedChoice> from_lut;
  std::string dropped;
  if (entry != nullptr) from_lut = usable_lut_choices(*entry, problem, backends, options, dropped);

  if (entry != nullptr && entry->mode == LutMode::use && !from_lut.empty()) {
    out.use = from_lut.front();
    out.note = lut_note("used without tuning", dropped);
    return out;
  }
  if (entry != nullptr && entry->mode == LutMode::only && !from_lut.empty()) {
    for (const SelectedChoice& choice : from_lut) {
        out.configs[choice.backend].push_back(choice.config);
    }
    out.note = lut_note("its " + std::to_string(from_lut.size()) + " configs only", dropped);
    return out;
  }

  SearchSpace space = options.search;
  std::string fallback;
  const bool top_k = !options.benchmark.all();
  // The session's model, or for a kind of problem it has no data for, the one found for that
  // kind (TuneOptions::models_by_kind).
  const CostModel* model = options.model.get();
  const KindModel* for_kind = nullptr;
  if (top_k) {
    if (!model) {
      fallback = "no cost model";
    } else if (Status applies = model->applies_to(problem); !applies.is_ok()) {
      const auto other = options.models_by_kind.find(problem_kind(problem));
      if (other != options.models_by_kind.end() && other->second.model &&
          other->second.model->applies_to(problem).is_ok()) {
        for_kind = &other->second;
        model = for_kind->model.get();
      } else {
        fallback = applies.message();
      }
    }
    if (!fallback.empty()) space = SearchSpace::default_space;
  }
  // A backend the model does not rank is timed in full, so it offers its default space (its
  // exhaustive one would make a tuning at top k slower than one without the model).
  std::vector<std::vector<KernelConfig>> offered(backends.size());
  std::string unranked;
  for (std::size_t b = 0; b < backends.size(); ++b) {
    if (!backend_wanted(options, backends[b]->name())) continue;
    const bool ranked = !top_k || !fallback.empty() || model->ranks(backends[b]->name());
    if (!ranked) {
      const std::string name(backends[b]->name());
      const std::vector<std::string>& set_aside = model->set_aside();
      const bool changed = std::find(set_aside.begin(), set_aside.end(), name) != set_aside.end();
      unranked += (unranked.empty() ? "" : ", ") + name + (changed ? " (at another version than it was trained on)" : "");
    }
    offered[b] = backends[b]->configs(problem, ranked ? space : SearchSpace::default_space);
    out.offered[b] = offered[b].size();
  }

  if (top_k && fallback.empty()) {
    std::string why;
    int families_added = 0;
    const int k = for_kind != nullptr && for_kind->fast_k > 0 ? for_kind->fast_k
                  : options.benchmark.model_k                  ? model->info().fast_k()
                                                               : options.benchmark.top_k;
    if (rank_with_model(*model, problem, backends, offered, k, out, families_added, why)) {
      out.note = "cost model: top " + std::to_string(k) + " of " +
                 std::to_string(count(out.configs) + out.reserve.size()) + " choices of the " +
                 std::string(space_name(space)) + " space";
      if (families_added > 0) {
        out.note += ", and the best-ranked of " + std::to_string(families_added) + " more kernel famil" +
                    (families_added == 1 ? "y" : "ies") + " predicted within " +
                    band_text() + " of the top";
      }
      if (!unranked.empty()) out.note += "; the default space of " + unranked + ", which it does not rank, in full";
      if (for_kind != nullptr) {
        out.note += "; ranked by the model " + for_kind->whose + ": the session's has no data for " +
                    problem_kind(problem) + " problems";
      }
    } else {
      fallback = why;
      space = SearchSpace::default_space;
      out = ChoiceSelection{};
      out.configs.resize(backends.size());
      out.offered.assign(backends.size(), ChoiceSelection::kNotAsked);
      for (std::size_t b = 0; b < backends.size(); ++b) {
        if (!backend_wanted(options, backends[b]->name())) continue;
        offered[b] = backends[b]->configs(problem, space);
        out.offered[b] = offered[b].size();
      }
    }
  }
  if (!fallback.empty()) {
    out.configs = offered;
    out.note = "benchmark " + options.benchmark.to_string() + " without a usable cost model (" + fallback +
               "): the default space, timed in full";
  } else if (!top_k) {
    out.configs = offered;
  }

  // The table's configs join the choices whatever the spaces say (mode include, or a mode
  // whose configs could not be used as it asks).
  int added = 0;
  for (const SelectedChoice& choice : from_lut) {
    if (contains(out.configs[choice.backend], choice.config)) continue;
    out.configs[choice.backend].push_back(choice.config);
    out.reserve.erase(std::remove_if(out.reserve.begin(), out.reserve.end(),
                                     [&](const SelectedChoice& r) {
                                       return r.backend == choice.backend && r.config == choice.config;
                                     }),
                      out.reserve.end());
    ++added;
  }
  if (entry != nullptr) {
    std::string what = std::to_string(added) + " configs added";
    if (entry->mode != LutMode::include && from_lut.empty()) {
      what += ", none usable as mode " + std::string(lut_mode_name(entry->mode)) + " asks";
    }
    const std::string lut_part = lut_note(what, dropped);
    out.note = out.note.empty() ? lut_part : out.note + "; " + lut_part;
  }
  return out;
}

}  // namespace gemmtune
