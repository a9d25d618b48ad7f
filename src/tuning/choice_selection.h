// Which choices a tuning runs (design.md: choices = backends.configs(problem) ∩ LUT ∩
// CostModel.top_k). The autotuner, the store's "does this entry cover today's choices" check
// and the incremental re-tuning all ask here, so they agree on what a tuning of a problem is.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "../core/backend.h"
#include "gemmtune/tuning_options.h"

namespace gemmtune {

struct SelectedChoice {
  std::size_t backend = 0;  // index into the BackendList
  KernelConfig config;
};

struct ChoiceSelection {
  // Per backend of the list (same index): the configs to prepare, verify and time, in the
  // fixed tie-break order (the backend's own config order, then lookup-table additions).
  std::vector<std::vector<KernelConfig>> configs;
  // Per backend: how many configs its search space offered (0: the backend can do nothing
  // for this problem, which the report says), or kNotAsked when its configs were not asked
  // for (not wanted, or a lookup-table entry decided the choices).
  static constexpr std::size_t kNotAsked = std::size_t(-1);
  std::vector<std::size_t> offered;
  // Cost-model ranking left out of its shortlist, best first: timed when none of `configs` succeeds,
  // k at a time, so that a ranking whose top choices all fail still yields a kernel.
  std::vector<SelectedChoice> reserve;
  std::size_t batch = 0;  // k
  // A lookup-table entry in mode "use": this choice is used without tuning.
  std::optional<SelectedChoice> use;
  // For the report: how the choices were narrowed; empty when all of the search space is timed.
  std::string note;
};

ChoiceSelection select_choices(const Problem& problem, const DeviceInfo& device, const BackendList& backends,
                               const TuneOptions& options);

// Whether `options` lets the tuning use this backend (TuneOptions::backends).
bool backend_wanted(const TuneOptions& options, std::string_view backend);

}  // namespace gemmtune
