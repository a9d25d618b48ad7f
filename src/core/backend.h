// The interface every kernel family implements. Core talks to backends only through it;
// backends register in one factory per platform (src/backends/registry.cc).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "gemmtune/config.h"
#include "gemmtune/device.h"
#include "gemmtune/problem.h"
#include "gemmtune/tuning_options.h"
#include "gemmtune/status.h"

namespace gemmtune {

// One problem's operands. The kernel was prepared for that problem; these are only pointers.
struct GemmArgs {
  const void* a = nullptr;
  const void* b = nullptr;
  void* c = nullptr;
  void* stream = nullptr;  // cudaStream_t for GPU backends; unused on the CPU
  // The stream's previous work wrote A or B (copies moved onto the grid, core/operand_relocation.h):
  // a kernel must read them only after its wait on that work, not before (GEMMTUNE_PDL=weights).
  bool operands_just_written = false;
};

// A kernel prepared for one problem and one config: compiled, planned, primitives created.
class Kernel {
 public:
  virtual ~Kernel() = default;
  // Must be safe to call from several threads at once.
  virtual Status run(const GemmArgs& args) = 0;
  // Scratch memory the kernel needs beyond its operands.
  virtual std::size_t workspace_bytes() const { return 0; }
  // What the config alone does not say about the code that runs, for reports: a vendor
  // library's own name for the algorithm its heuristic ranked at the config's place
  // (cuBLASLt: "id=21 tile=... splitk=2"). Empty when the config says it all.
  virtual std::string detail() const { return {}; }
  // Where a JIT kernel's prepare went, for reports: its compile (or cached cubin's read) and its
  // check in the worker process, the wait for the worker included; -1 where a part did not apply.
  struct PrepareTimes {
    double compile_s = -1;
    double check_s = -1;
  };
  virtual PrepareTimes prepare_times() const { return {}; }

  // The address bits of A and of B that put them off the grid its family's kernels were tuned
  // at (Backend::operand_grid_bytes - 1 for each operand's size; packed, core/operand_grid.h),
  // set where every kernel is prepared (prepare_choice): a call with one of them set runs on
  // copies moved onto the grid. 0 for a kernel of the session's own (a shape run through its op,
  // which moves operands by its sub-kernel's grid). Read on every call, beside the vtable.
  std::uintptr_t operand_grid_mask = 0;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string_view name() const = 0;
  // Changes whenever the backend's kernels change (library version, hash of our kernel
  // sources), so stored picks made with older kernels are not trusted.
  virtual std::string version() const = 0;
  // The candidate configs for a problem, already scaled to its size, pruned by the device's
  // limits, deduplicated and capped. Empty if the backend cannot do the problem at all.
  virtual std::vector<KernelConfig> configs(const Problem& problem, SearchSpace space) const = 0;
  // Ok, or the reason this config cannot run this problem.
  virtual Status can_implement(const Problem& problem, const KernelConfig& config) const = 0;
  virtual Result<std::unique_ptr<Kernel>> prepare(const Problem& problem,
                                                  const KernelConfig& config) const = 0;
  // Kernels this backend has compiled so far in this process (JIT backends; cache hits do not
  // count). Tuning reports show it, so a warm cache is visible as zero compilations.
  virtual std::int64_t compilations() const { return 0; }
  // A rough estimate of the CPU seconds prepare() spends compiling this config where nothing is
  // cached (0: it compiles nothing). Only the order matters: the tuner prepares the costliest
  // first, so that a cold tuning's longest compiles do not start last.
  virtual double prepare_cost(const Problem& problem, const KernelConfig& config) const {
    (void)problem;
    (void)config;
    return 0;
  }
  // Whether its kernels run a call wherever the operands lie. Kernels that move operands in
  // 16-byte pieces (TMA, vector loads) refuse a call with an operand off that grid, as
  // `unsupported` and before anything is enqueued; the session then runs that call with the
  // first backend that reads any address.
  virtual bool reads_any_address() const { return true; }
  // The alignment, in bytes, of the address of an operand (A or B) of `operand_bytes` that its
  // kernels were tuned at and run as tuned at (tuning's operands are where the device's
  // allocator puts them). The session moves a call's A or B that lies off it onto a copy that
  // lies on it: on the H200 a TMA kernel read bf16 4096³ with A 16 bytes off the 256-byte grid
  // in 1.7x its time, and 2 bytes off not at all. A small operand may be read where it lies
  // for less than its copy costs. 1: the kernels run any address as fast (the CPU's).
  virtual std::size_t operand_grid_bytes(std::int64_t operand_bytes) const {
    (void)operand_bytes;
    return 1;
  }
  // Configs that do all of the library's own work per call (Session::per_call_configs), which
  // may lie outside configs(): libxsmm's lookup on every call is never a candidate, as it is
  // never faster than the kernel looked up once. By default every config already is one.
  virtual std::vector<KernelConfig> per_call_configs(const Problem& problem) const {
    return configs(problem, SearchSpace::default_space);
  }
  // The configs a program that calls the library itself runs, which `gemmtune bench` times as
  // the peer; they may lie outside configs(). cuBLASLt's own preferences let split-k add its
  // partial sums in bf16, which gemmtune's choices do not (cublaslt_plan.h). By default, its
  // configs in the space given.
  virtual std::vector<KernelConfig> peer_configs(const Problem& problem, SearchSpace space) const {
    return configs(problem, space);
  }
};

using BackendList = std::vector<std::unique_ptr<Backend>>;

// kernel.run(args), with an exception turned into an error Status: a candidate that throws
// is dropped, never fatal to the tuning.
Status run_guarded(Kernel& kernel, const GemmArgs& args);

// Every backend this build has for the device, in the fixed order used for tie-breaks.
// Defined by the platform registry, not by core.
BackendList create_backends(const DeviceInfo& device);

}  // namespace gemmtune
