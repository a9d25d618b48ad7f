// What one tuning did: every choice with its fate and time, and the pick.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gemmtune/config.h"
#include "gemmtune/problem.h"

namespace gemmtune {

enum class ChoiceStatus {
  ok,              // verified and timed
  skipped,         // the backend cannot implement this problem/config (reason says why)
  prepare_failed,  // building the kernel failed or threw
  run_failed,      // running it returned an error or threw
  wrong_result,    // its output differs from the reference beyond the dtype's tolerance
  pruned,          // correct, but far slower than the fastest in a first short sample
};

std::string_view choice_status_name(ChoiceStatus status);

struct ChoiceReport {
  std::string backend;
  KernelConfig config;
  ChoiceStatus status = ChoiceStatus::skipped;
  std::string reason;     // why it is not ok; empty when ok
  double time_us = -1;    // median per call; -1 when not timed
  double time_mad_us = 0; // spread of the samples
  // How time_us was taken: calls per timing sample, sized from a calibration run of the
  // kernel (its per-call time there); 0 and -1 when not timed. Not stored.
  std::int64_t calls_per_sample = 0;
  double calibration_us = -1;
  // The largest |error| / bound over the elements of C (below 1 when every element is within
  // the bound its dtypes, k and inputs allow; 0 for exact integer output); -1 when not checked.
  double error = -1;
  // Wall time of preparing the kernel: a JIT family's compile (or its cached cubin's load) and
  // its check in the worker process; -1 when not prepared. Not stored.
  double prepare_s = -1;
  // The parts of prepare_s for a JIT family: the compile (or the cached cubin's read), and the
  // check in the worker process with the wait for it (one worker serves every thread); -1 where
  // a part did not apply. Not stored.
  double compile_s = -1;
  double check_s = -1;
  // A finalist of the autotuner's final round (TuneOptions::finalists): its time over the
  // fastest finalist's, round by round, the median; -1 when not a finalist. Not stored.
  double final_ratio = -1;
  // The rounds final_ratio is over: the final round's, and the close finish's for a finalist
  // close to the fastest (TuneOptions::close_band); 0 when not a finalist. Not stored.
  int final_rounds = 0;
};

struct TuneReport {
  std::string problem;  // Problem::describe()
  ProblemKey key;
  std::string device;   // DeviceInfo::fingerprint()
  std::vector<ChoiceReport> choices;
  int best = -1;        // index into choices; -1 when no choice succeeded
  double tuning_s = 0;  // wall time of the tuning (0 for a store hit)
  bool store_hit = false;
  std::int64_t compilations = 0;  // JIT compilations this tuning needed (0 with a warm cache)
  // Where tuning_s went, phase by phase (all 0 for a store hit): preparing the candidates (JIT
  // compiles or cached loads, and a GPU's check of each in the worker process, over the cores),
  // setting up the operands and the reference, checking each candidate's result, timing them,
  // and the final round of the fastest. Not stored. The operands are set up while the
  // candidates prepare, so those two overlap; prepare_cpu_s is the process's CPU time (every
  // thread, the operands' set-up included) meanwhile: near prepare_s times the cores when the
  // compiles kept them busy, far below when they waited (for the worker, for a busy machine).
  struct Phases {
    double prepare_s = 0, operands_s = 0, verify_s = 0, timing_s = 0, final_round_s = 0;
    double prepare_cpu_s = 0;
  } phases;
  // How the choices were narrowed, when they were: "cost model: top 5 of 412 choices of the
  // exhaustive space", "lookup table: used without tuning" …; empty when every choice of the
  // search space was timed.
  std::string selection;

  const ChoiceReport* best_choice() const { return best < 0 ? nullptr : &choices[best]; }
  // Inductor-style table: problem line, one row per choice ordered by time, then
  // "N choices benchmarked in X s".
  std::string table() const;
};

}  // namespace gemmtune
