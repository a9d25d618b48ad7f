#include "gemmtune/session.h"

#include <atomic>
#include <cstdlib>
#include <functional>
#include <map>
#include <bit>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <unordered_map>
#include <unordered_set>

#include "../tuning/incremental_tune.h"
#include "../tuning/session_store.h"
#include "../tuning/autotuner.h"
#include "../tuning/guarded_choice.h"
#include "../core/backend.h"
#include "gemmtune/op.h"
#include "../core/harness.h"
#include "../core/invariant.h"
#include "../core/lock_free_map.h"
#include "../core/operand_grid.h"
#include "../core/operand_relocation.h"
#include "session_options.h"
#include "session_testing.h"
#include "gemm_kernel_args.h"
#include "../core/warnings.h"
#include "../tuning/sweep_measure.h"
#include "gemmtune/cost_model.h"
#include "gemmtune/lut.h"

namespace gemmtune {
namespace {

// Kernels bake alpha and beta in at prepare time, so the dispatch table tells apart problems
// that ProblemKey (the tuning identity) treats as one.
struct DispatchKey {
  ProblemKey problem;
  double alpha = 1, beta = 0;
  bool operator==(const DispatchKey&) const = default;
};

// Fields of a key that are single bytes, as one word.
std::uint64_t kinds_word(DType a, DType b, DType c, Layout la, Layout lb, bool beta_zero, bool tf32) {
  return std::uint64_t(a) | std::uint64_t(b) << 8 | std::uint64_t(c) << 16 | std::uint64_t(la) << 24 |
         std::uint64_t(lb) << 32 | std::uint64_t(beta_zero) << 40 | std::uint64_t(tf32) << 41;
}

// Independent multiplies of every field, so the hash costs a few cycles of latency on the
// dispatch path (ProblemKey::hash mixes serially, and std::hash<double> is a call).
struct DispatchKeyHash {
  std::size_t operator()(const DispatchKey& key) const {
    const ProblemKey& p = key.problem;
    const std::uint64_t kinds =
        kinds_word(p.a_type, p.b_type, p.c_type, p.a_layout, p.b_layout, p.beta_zero, p.allow_tf32);
    const std::uint64_t h =
        (std::uint64_t(p.m) * 0x9e3779b97f4a7c15ull) ^ (std::uint64_t(p.n) * 0xc2b2ae3d27d4eb4full) ^
        (std::uint64_t(p.k) * 0x165667b19e3779f9ull) ^
        ((std::uint64_t(p.lda) ^ std::uint64_t(p.ldb) << 21 ^ std::uint64_t(p.ldc) << 42) * 0x27d4eb2f165667c5ull) ^
        (kinds * 0x94d049bb133111ebull) ^ (std::bit_cast<std::uint64_t>(key.alpha) * 0xbf58476d1ce4e5b9ull) ^
        (std::bit_cast<std::uint64_t>(key.beta) * 0x2545f4914f6cdd1dull);
    return std::size_t(h ^ (h >> 29));
  }
};

// Whether a problem has a key, read straight from the problem (no key built) and without a
// branch per field: the dispatch path asks this on every call, and all fields are equal on the
// path that matters.
// `key_kinds` is kinds_word of the key, computed once when the key was remembered.
bool has_key(const Problem& p, const DispatchKey& key, std::uint64_t key_kinds) {
  const ProblemKey& k = key.problem;
  const std::uint64_t diff =
      std::uint64_t(p.m() ^ k.m) | std::uint64_t(p.n() ^ k.n) | std::uint64_t(p.k() ^ k.k) |
      std::uint64_t(p.lda() ^ k.lda) | std::uint64_t(p.ldb() ^ k.ldb) | std::uint64_t(p.ldc() ^ k.ldc) |
      (kinds_word(p.a_type(), p.b_type(), p.c_type(), p.a_layout(), p.b_layout(), p.beta() == 0.0, p.allow_tf32()) ^
       key_kinds) |
      (std::bit_cast<std::uint64_t>(p.alpha()) ^ std::bit_cast<std::uint64_t>(key.alpha)) |
      (std::bit_cast<std::uint64_t>(p.beta()) ^ std::bit_cast<std::uint64_t>(key.beta));
  return diff == 0;
}

// The last problem each thread dispatched, per session: a program that calls the same problem
// over and over (a layer in a loop) skips the hash and the table probe. The slot, not the
// kernel, is kept, so a re-tuned problem is seen at once. `session` is a serial number that is
// never reused, so an entry of a destroyed session can never match a new one.
struct LastHit {
  std::uint64_t session = 0;
  // The Problem object (and its copies) last seen to have `key` (Problem::identity), 0 for
  // none: a caller that passes one problem over and over is recognised by one comparison.
  std::uint64_t problem = 0;
  DispatchKey key;
  std::uint64_t key_kinds = 0;  // kinds_word of key.problem
  const std::atomic<Kernel*>* slot = nullptr;
};
// initial-exec: a plain %fs-relative access. The default model for code that may go into a
// shared library calls __tls_get_addr on every access, some 2 ns of the ~4 ns dispatch; a
// library loaded with the program (or dlopen'ed into glibc's surplus static TLS, which this
// ~130-byte entry fits) may use this model.
__attribute__((tls_model("initial-exec"))) thread_local LastHit last_hit;
std::atomic<std::uint64_t> session_serial{0};

struct Pick {
  const Backend* backend = nullptr;
  KernelConfig config;
  double time_us = -1;
  bool routed = false;  // a sub-kernel of the family's op, not a tuning of this problem
  GemmOp* op = nullptr;  // the family's op where the shape runs through it (ThroughOp)
};

// A shape the benchmark policy routed runs through its family's op until its route settles,
// so that the op's in-use check (and the revisit it may lead to) sees Session::gemm's calls as
// it sees GemmOp::run's; installed directly, a routed shape kept its first route for good.
// Once the op's check is done, `settle` installs the kernel the op serves in its place: through
// the op a call cost 6 ns more (bench/dispatch_bench.cc: 15.4 ns against 9.5 on the Emerald
// Rapids VM).
class ThroughOp final : public Kernel {
 public:
  ThroughOp(GemmOp& op, const Problem& problem, std::function<void()> settle)
      : op_(op), m_(problem.m()), n_(problem.n()), k_(problem.k()), settle_(std::move(settle)) {}
  Status run(const GemmArgs& args) override {
    Status status = op_.run(m_, n_, k_, args.a, args.b, args.c, args.stream);
    if (!settled_.load(std::memory_order_relaxed) && op_.route_settled(m_, n_, k_) && !settled_.exchange(true)) settle_();
    return status;
  }

 private:
  GemmOp& op_;
  std::int64_t m_, n_, k_;
  std::function<void()> settle_;
  std::atomic<bool> settled_{false};
};

class GemmKernelHandle final : public GemmKernel {
 public:
  GemmKernelHandle(std::unique_ptr<Kernel> kernel, std::string backend, KernelConfig config)
      : kernel_(std::move(kernel)), backend_(std::move(backend)), config_(config) {}
  Status run(const void* a, const void* b, void* c, void* stream) override { return kernel_->run({a, b, c, stream}); }
  Status run(const GemmArgs& args) { return kernel_->run(args); }
  std::uintptr_t operand_grid_mask() const { return kernel_->operand_grid_mask; }
  const std::string& backend() const override { return backend_; }
  const KernelConfig& config() const override { return config_; }
  std::string detail() const override { return kernel_->detail(); }

 private:
  std::unique_ptr<Kernel> kernel_;
  std::string backend_;
  KernelConfig config_;
};

Status check_pointers(const Problem& p, const void* a, const void* b, const void* c) {
  if (p.m() > 0 && p.k() > 0 && a == nullptr) return invalid_argument("A is null for a non-empty problem");
  if (p.k() > 0 && p.n() > 0 && b == nullptr) return invalid_argument("B is null for a non-empty problem");
  if (p.m() > 0 && p.n() > 0 && c == nullptr) return invalid_argument("C is null for a non-empty problem");
  return Status::ok();
}

}  // namespace

struct Session::Impl {
  Session* self = nullptr;
  const std::uint64_t serial = ++session_serial;
  SessionOptions options;
  DeviceInfo device;
  BackendList backends;

  // Dispatch: gemm() reads it without a lock; writers hold table_mutex. A re-tuned problem
  // swaps its kernel pointer atomically.
  LockFreeMap<DispatchKey, std::atomic<Kernel*>, DispatchKeyHash> table;
  // Guards `picks`, `owned` and writes to `table`.
  std::shared_mutex table_mutex;
  std::unordered_map<ProblemKey, Pick> picks;
  // Every kernel ever installed stays alive until the session ends: a thread may still be
  // running one that tune() has since replaced.
  std::vector<std::shared_ptr<Kernel>> owned;
  // One tuning at a time: concurrent benchmarks would disturb each other's timings.
  std::mutex tune_mutex;
  // Null when the store is off.
  std::unique_ptr<SessionStore> store;
  // Routing (options.routing): one multi-kernel op per problem family, built on the family's
  // first shape. routing_mutex orders route decisions; the ops tune through tune_mutex.
  std::mutex routing_mutex;
  std::map<std::string, std::unique_ptr<GemmOp>> families;

  // Operands off the grid a family's kernels were tuned at (Backend::operand_grid_bytes, kept
  // in each kernel as Kernel::operand_grid_mask; 0 on the CPU): a call whose A or B lies there
  // runs on copies moved onto it (core/operand_relocation.h: one buffer for the session, null on
  // the CPU). Each problem's first such call says so.
  std::unique_ptr<OperandRelocation> relocation;
  std::mutex relocated_mutex;
  std::unordered_set<DispatchKey, DispatchKeyHash> relocated;

  // A call whose A or B may lie off the grid (`mask`) of the family that runs it: `call` runs it
  // on copies moved onto the grid where they do and can be, and a call it still refuses runs
  // on a kernel that reads any address.
  Status run_off_grid(const Problem& problem, const GemmArgs& args, std::uintptr_t mask,
                      const std::function<Status(const GemmArgs&)>& call) {
    const bool moves = relocation != nullptr && problem.k() > 0 && off_grid(args.a, args.b, mask);
    if (moves) {
      const DispatchKey key{ProblemKey::of(problem), problem.alpha(), problem.beta()};
      std::lock_guard lock(relocated_mutex);
      if (relocated.insert(key).second) {
        warn_once(problem.describe() + ": A or B lies off the grid the picked kernel was tuned at; such calls "
                  "copy it onto the grid first (where the copy takes at most " +
                  std::to_string(max_relocated_operand_bytes(device.cuda.global_memory_bytes) >> 20) + " MiB)");
      }
    }
    Status status = moves ? relocation->run(problem, args, mask, call) : call(args);
    if (status.code() == ErrorCode::unsupported) return run_at_any_address(problem, args, status);
    return status;
  }

  // Session::gemm of a problem other than the one this thread ran last (or with an operand
  // missing): checked, looked up by its key, tuned or loaded if new. Out of line, as every path
  // of Session::gemm but the one of a known problem: inlined, their locals and saved registers
  // made that path's frame, pushed and popped on every call.
  [[gnu::noinline]] Status gemm_by_key(const Problem& problem, const void* a, const void* b, void* c, void* stream) {
    GEMMTUNE_RETURN_IF_ERROR(check_pointers(problem, a, b, c));
    // An empty C needs no kernel (k == 0 does: C = beta·C).
    if (problem.m() == 0 || problem.n() == 0) return Status::ok();
    const DispatchKey key{ProblemKey::of(problem), problem.alpha(), problem.beta()};
    Kernel* kernel = find(key);
    if (kernel == nullptr) {
      GEMMTUNE_ASSIGN_OR_RETURN(kernel, resolve(problem, key));
    }
    return run_installed(kernel, problem, {a, b, c, stream});
  }

  // A call of the installed kernel, as Session::gemm makes it. Each path hands back a Status
  // built in the caller's place: a Status made first and assigned after cost 2 ns a call.
  Status run_installed(Kernel* kernel, const Problem& problem, const GemmArgs& args) {
    if (off_grid(args.a, args.b, kernel->operand_grid_mask)) [[unlikely]] return run_moved(kernel, problem, args);
    return run_checked(kernel, problem, args);
  }

  Status run_checked(Kernel* kernel, const Problem& problem, const GemmArgs& args) {
    Status status = kernel->run(args);
    if (status.code() == ErrorCode::unsupported) [[unlikely]] status = run_at_any_address(problem, args, status);
    return status;
  }

  [[gnu::noinline]] Status run_moved(Kernel* kernel, const Problem& problem, const GemmArgs& args) {
    return run_off_grid(problem, args, kernel->operand_grid_mask,
                        [kernel](const GemmArgs& moved) { return kernel->run(moved); });
  }

  // Kernels for the calls an installed kernel refused where their operands lie (an address off
  // TMA's 16-byte grid: a view into a larger buffer): per key, a kernel of each backend that
  // reads any address, in the backends' order, each prepared when a call first needs it (the
  // next serves where one still refuses, as cuBLASLt may for some alignments) and then kept.
  struct AnyAddress {
    std::vector<std::unique_ptr<Kernel>> kernels;  // never shrinks: a kernel lives as long as the session
    std::size_t backends_tried = 0;
    std::string reasons;  // why the backends tried gave no kernel
  };
  std::mutex any_address_mutex;
  std::unordered_map<DispatchKey, AnyAddress, DispatchKeyHash> any_address;

  // The i-th kernel for such calls of `key`, prepared now if need be; unsupported past the last.
  Result<Kernel*> any_address_kernel(const Problem& problem, const DispatchKey& key, std::size_t i,
                                     const Status& refused) {
    std::lock_guard lock(any_address_mutex);
    AnyAddress& entry = any_address[key];
    while (entry.kernels.size() <= i) {
      if (entry.backends_tried == backends.size()) {
        return unsupported("no backend that reads operands at any address can run it" + entry.reasons);
      }
      const Backend& backend = *backends[entry.backends_tried++];
      if (!backend.reads_any_address()) continue;
      // A family may leave a problem out of its default space where another serves it better
      // (mma where wgmma does, on Hopper): its exhaustive space still has it.
      std::vector<KernelConfig> configs = backend.configs(problem, SearchSpace::default_space);
      if (configs.empty()) configs = backend.configs(problem, SearchSpace::exhaustive);
      if (configs.empty()) continue;
      auto kernel = prepare_checked(backend, problem, configs.front());
      if (!kernel.is_ok()) {
        entry.reasons += "; " + std::string(backend.name()) + ": " + kernel.status().message();
        continue;
      }
      const std::string config = configs.front().to_string();
      warn_once(problem.describe() + ": " + refused.message() + "; such calls run " + std::string(backend.name()) +
                (config == "-" ? "" : " " + config) + " instead");
      entry.kernels.push_back(std::move(kernel).value());
    }
    return entry.kernels[i].get();
  }

  // A call the installed kernel refused (`refused`), run by the first kernel that reads any
  // address and does not refuse it too. Out of line, as gemm_by_key.
  [[gnu::noinline]] Status run_at_any_address(const Problem& problem, const GemmArgs& args, const Status& refused) {
    const DispatchKey key{ProblemKey::of(problem), problem.alpha(), problem.beta()};
    std::string reasons = refused.message();
    for (std::size_t i = 0;; ++i) {
      auto kernel = any_address_kernel(problem, key, i, refused);
      if (!kernel.is_ok()) return unsupported(reasons + "; " + kernel.status().message());
      Status status = (*kernel)->run(args);
      if (status.code() != ErrorCode::unsupported) return status;
      reasons += "; " + status.message();
    }
  }

  // The backend of that name, or not_found naming the device.
  Result<const Backend*> backend_named(std::string_view name) const {
    for (const auto& backend : backends) {
      if (backend->name() == name) return backend.get();
    }
    return not_found("backend '" + std::string(name) + "' is not available on " + device.name);
  }

  // The kernel of the problem this thread dispatched last, if it is this one.
  Kernel* find_last(const Problem& problem) const {
    LastHit& hit = last_hit;
    if (hit.session != serial) return nullptr;
    if (hit.problem != problem.identity()) [[unlikely]] {
      if (!has_key(problem, hit.key, hit.key_kinds)) return nullptr;
      hit.problem = problem.identity();
    }
    return hit.slot->load(std::memory_order_acquire);
  }

  Kernel* find(const DispatchKey& key) const {
    const std::atomic<Kernel*>* slot = table.find(key);
    if (slot == nullptr) return nullptr;
    LastHit& hit = last_hit;
    hit.session = serial;
    hit.problem = 0;
    hit.key = key;
    const ProblemKey& p = key.problem;
    hit.key_kinds = kinds_word(p.a_type, p.b_type, p.c_type, p.a_layout, p.b_layout, p.beta_zero, p.allow_tf32);
    hit.slot = slot;
    return slot->load(std::memory_order_acquire);
  }

  Kernel* install(const DispatchKey& key, std::shared_ptr<Kernel> kernel, Pick pick) {
    GEMMTUNE_ASSERT(kernel != nullptr, "a pick is installed with its kernel: a null one would be called");
    std::unique_lock lock(table_mutex);
    Kernel* raw = kernel.get();
    owned.push_back(std::move(kernel));
    std::atomic<Kernel*>* slot = table.insert(key, std::make_unique<std::atomic<Kernel*>>(raw));
    slot->store(raw, std::memory_order_release);
    picks[key.problem] = pick;
    return raw;
  }

  // `reusable`: stored choices still valid; only the others are run.
  Result<TuneReport> tune_and_install(const Problem& problem, const DispatchKey& key,
                                      const std::vector<ChoiceReport>& reusable = {}) {
    TuneOutcome outcome = reusable.empty() ? autotune(problem, device, backends, options.tuning)
                                           : tune_incrementally(problem, device, backends, options.tuning, reusable);
    if (!outcome.kernel) {
      std::string reasons;
      for (const ChoiceReport& c : outcome.report.choices) {
        reasons += "\n  " + c.backend + " " + c.config.to_string() + ": " + c.reason;
      }
      return Status(ErrorCode::unsupported, "no backend could run " + problem.describe() + reasons);
    }
    const ChoiceReport& best = *outcome.report.best_choice();
    Pick pick{nullptr, best.config, best.time_us};
    for (const auto& backend : backends) {
      if (backend->name() == best.backend) pick.backend = backend.get();
    }
    install(key, std::move(outcome.kernel), pick);
    if (store && !outcome.from_lookup_table) store->save(outcome.report, backends);
    return std::move(outcome.report);
  }

  // The stored pick, prepared and installed; nullopt when the store has none that is usable,
  // and then `reusable` holds the stored choices a tuning need not run again.
  std::optional<TuneReport> install_from_store(const Problem& problem, const DispatchKey& key,
                                               std::vector<ChoiceReport>& reusable) {
    if (!store) return std::nullopt;
    StoreLookup found = store->lookup(problem, device, backends, options.tuning);
    reusable = std::move(found.reusable);
    std::optional<StoredPick>& stored = found.hit;
    if (!stored) return std::nullopt;
    auto kernel = prepare_checked(*stored->backend, problem, stored->config);
    if (!kernel.is_ok()) {
      warn_once("the stored pick for " + problem.describe() + " (" + std::string(stored->backend->name()) + " " +
                stored->config.to_string() + ") failed to prepare: " + kernel.status().message() + "; re-tuning");
      return std::nullopt;
    }
    const ChoiceReport& best = *stored->report.best_choice();
    install(key, std::shared_ptr<Kernel>(std::move(kernel).value()), Pick{stored->backend, stored->config, best.time_us});
    return std::move(stored->report);
  }

  // The family's op for a new shape, built on first sight; null when routing is off or the
  // problem fits no family (padded operands along a dynamic dim).
  Result<GemmOp*> family_op(const Problem& problem) {
    const ShapeRouting& routing = options.routing;
    if (routing.route.policy == RoutePolicy::autotune) return nullptr;
    std::optional<ProblemSpec> family = family_of(problem, routing.dynamic_dims);
    if (!family) return nullptr;
    // The family's identity: the problem with its dynamic dims blanked, plus what kernels bake in.
    ProblemSpec blank = *family;
    for (std::int64_t* dim : {&blank.m, &blank.n, &blank.k}) {
      if (*dim == kDynamic) *dim = 1;
    }
    GEMMTUNE_ASSIGN_OR_RETURN(Problem representative, Problem::create(blank));
    std::string name = ProblemKey::of(representative).to_string() + "|" + routing.dynamic_dims + "|" +
                       std::to_string(problem.alpha()) + "|" + std::to_string(problem.beta());
    auto it = families.find(name);
    if (it == families.end()) {
      GemmOpOptions op_options;
      op_options.hints = routing.hints;
      op_options.route = routing.route;
      op_options.revisit_after_calls = routing.revisit_after_calls;
      GEMMTUNE_ASSIGN_OR_RETURN(auto op, GemmOp::create(*self, *family, op_options));
      it = families.emplace(name, std::move(op)).first;
    }
    return it->second.get();
  }

  // A new shape of a routed family: the op decides the sub-kernel, which is then prepared for
  // this problem and installed like a pick. nullptr when the problem is not routed.
  Result<Kernel*> resolve_routed(const Problem& problem, const DispatchKey& key) {
    std::lock_guard guard(routing_mutex);
    if (Kernel* kernel = find(key)) return kernel;
    GEMMTUNE_ASSIGN_OR_RETURN(GemmOp* op, family_op(problem));
    if (op == nullptr) return static_cast<Kernel*>(nullptr);
    // Building the op tuned its hints: a hint shape has a pick of its own now.
    if (Kernel* kernel = find(key)) return kernel;
    GEMMTUNE_ASSIGN_OR_RETURN(int sub_index, op->route(problem.m(), problem.n(), problem.k()));
    if (sub_index < 0) return static_cast<Kernel*>(nullptr);  // the op tuned it: take the pick
    if (op->policy().policy == RoutePolicy::benchmark && options.routing.revisit_after_calls > 0) {
      GEMMTUNE_ASSIGN_OR_RETURN(Pick pick, routed_pick(*op, problem));
      pick.op = op;
      // The op prepared (and checked) the sub-kernel for this shape when it routed it. A failed
      // settle leaves the shape running through the op, which is correct, only slower.
      auto settle = [this, op, problem, key] { (void)install_routed(*op, problem, key); };
      return install(key, std::make_shared<ThroughOp>(*op, problem, settle), pick);
    }
    return install_routed(*op, problem, key);
  }

  // The sub-kernel the op serves a shape it routed with now, as a pick.
  Result<Pick> routed_pick(GemmOp& op, const Problem& problem) const {
    GEMMTUNE_ASSIGN_OR_RETURN(int sub_index, op.route(problem.m(), problem.n(), problem.k()));
    if (sub_index < 0) return internal_error("the op routed " + problem.describe() + " to no sub-kernel");
    const SubKernel& sub = op.sub_kernels()[std::size_t(sub_index)];
    GEMMTUNE_ASSIGN_OR_RETURN(const Backend* backend, backend_named(sub.backend));
    return Pick{backend, sub.config, -1, true};
  }

  // That sub-kernel prepared for the shape and installed in its own right.
  Result<Kernel*> install_routed(GemmOp& op, const Problem& problem, const DispatchKey& key) {
    GEMMTUNE_ASSIGN_OR_RETURN(Pick pick, routed_pick(op, problem));
    GEMMTUNE_ASSIGN_OR_RETURN(auto kernel, prepare_checked(*pick.backend, problem, pick.config));
    return install(key, std::shared_ptr<Kernel>(std::move(kernel)), pick);
  }

  // The kernel for a problem: known, or routed within its family, or prepared from a known
  // pick, or tuned.
  Result<Kernel*> resolve(const Problem& problem, const DispatchKey& key) {
    if (options.routing.route.policy != RoutePolicy::autotune) {
      GEMMTUNE_ASSIGN_OR_RETURN(Kernel* routed, resolve_routed(problem, key));
      if (routed != nullptr) return routed;
    }
    std::lock_guard guard(tune_mutex);
    if (Kernel* kernel = find(key)) return kernel;  // another thread got here first
    Pick pick;
    {
      std::shared_lock lock(table_mutex);
      if (auto it = picks.find(key.problem); it != picks.end()) pick = it->second;
    }
    if (pick.backend != nullptr) {
      auto kernel = prepare_checked(*pick.backend, problem, pick.config);
      if (kernel.is_ok()) return install(key, std::shared_ptr<Kernel>(std::move(kernel).value()), pick);
    }
    std::vector<ChoiceReport> reusable;
    if (install_from_store(problem, key, reusable)) return find(key);
    auto report = tune_and_install(problem, key, reusable);
    if (!report.is_ok()) return report.status();
    return find(key);
  }
};

Session::Session(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Session::~Session() = default;

Result<std::unique_ptr<Session>> create_session(SessionOptions options, DeviceInfo device, BackendList backends) {
  GEMMTUNE_RETURN_IF_ERROR(validate_session_options(options));
  auto impl = std::make_unique<Session::Impl>();
  impl->backends = std::move(backends);
  impl->device = std::move(device);
  impl->relocation = create_operand_relocation(impl->device);
  for (const std::string& name : options.tuning.backends) GEMMTUNE_RETURN_IF_ERROR(impl->backend_named(name).status());
  impl->store = SessionStore::open(options.store);
  load_lut_and_model(options, impl->device, impl->backends);
  impl->options = std::move(options);
  auto session = std::unique_ptr<Session>(new Session(std::move(impl)));
  session->impl_->self = session.get();
  return session;
}

Result<std::unique_ptr<Session>> Session::create(SessionOptions options) {
  GEMMTUNE_ASSIGN_OR_RETURN(DeviceInfo device, find_device(options.device));
  BackendList backends = create_backends(device);
  return create_session(std::move(options), std::move(device), std::move(backends));
}

Status Session::gemm(const Problem& problem, const void* a, const void* b, void* c, void* stream) {
  // The hot path: the problem this thread ran last, with every operand given (a kernel is only
  // ever installed for m, n > 0). No key is built and nothing is hashed.
  Kernel* kernel = impl_->find_last(problem);
  if (kernel != nullptr && a != nullptr && b != nullptr && c != nullptr) [[likely]] {
    return impl_->run_installed(kernel, problem, {a, b, c, stream});
  }
  return impl_->gemm_by_key(problem, a, b, c, stream);
}

Status Session::prepare(const Problem& problem) {
  if (problem.m() == 0 || problem.n() == 0) return Status::ok();
  const DispatchKey key{ProblemKey::of(problem), problem.alpha(), problem.beta()};
  if (impl_->find(key) != nullptr) return Status::ok();
  return impl_->resolve(problem, key).status();
}

Result<TuneReport> Session::tune(const Problem& problem) {
  std::lock_guard guard(impl_->tune_mutex);
  return impl_->tune_and_install(problem, {ProblemKey::of(problem), problem.alpha(), problem.beta()});
}

Result<TuneReport> Session::tune_or_load(const Problem& problem) {
  std::lock_guard guard(impl_->tune_mutex);
  const DispatchKey key{ProblemKey::of(problem), problem.alpha(), problem.beta()};
  std::vector<ChoiceReport> reusable;
  if (std::optional<TuneReport> stored = impl_->install_from_store(problem, key, reusable)) return std::move(*stored);
  return impl_->tune_and_install(problem, key, reusable);
}

Result<std::unique_ptr<GemmKernel>> Session::kernel(const Problem& problem, std::string_view backend_name,
                                                    const KernelConfig& config) {
  GEMMTUNE_ASSIGN_OR_RETURN(const Backend* backend, impl_->backend_named(backend_name));
  KernelConfig chosen = config;
  if (chosen == KernelConfig{}) {
    std::vector<KernelConfig> configs = backend->configs(problem, SearchSpace::default_space);
    if (configs.empty()) {
      Status why = backend->can_implement(problem, {});
      return unsupported(std::string(backend_name) + " cannot run " + problem.describe() +
                         (why.is_ok() ? "" : ": " + why.message()));
    }
    chosen = configs.front();
  }
  GEMMTUNE_ASSIGN_OR_RETURN(auto kernel, prepare_checked(*backend, problem, chosen));
  return std::unique_ptr<GemmKernel>(
      std::make_unique<GemmKernelHandle>(std::move(kernel), std::string(backend_name), chosen));
}

Result<ShapeMeasurement> Session::measure_configs(const Problem& problem, const SweepOptions& options) {
  std::lock_guard guard(impl_->tune_mutex);
  for (const std::string& name : options.backends) GEMMTUNE_RETURN_IF_ERROR(impl_->backend_named(name).status());
  return measure_every_config(problem, impl_->device, impl_->backends, options);
}

Result<std::vector<KernelConfig>> Session::configs(const Problem& problem, std::string_view backend_name) const {
  GEMMTUNE_ASSIGN_OR_RETURN(const Backend* backend, impl_->backend_named(backend_name));
  return backend->configs(problem, impl_->options.tuning.search);
}

Result<std::vector<KernelConfig>> Session::peer_configs(const Problem& problem, std::string_view backend_name) const {
  GEMMTUNE_ASSIGN_OR_RETURN(const Backend* backend, impl_->backend_named(backend_name));
  return backend->peer_configs(problem, impl_->options.tuning.search);
}

Result<std::vector<KernelConfig>> Session::per_call_configs(const Problem& problem,
                                                            std::string_view backend_name) const {
  GEMMTUNE_ASSIGN_OR_RETURN(const Backend* backend, impl_->backend_named(backend_name));
  return backend->per_call_configs(problem);
}

Result<PickInfo> Session::pick(const Problem& problem) const {
  std::shared_lock lock(impl_->table_mutex);
  auto it = impl_->picks.find(ProblemKey::of(problem));
  if (it == impl_->picks.end()) return not_found("no pick for " + problem.describe() + ": not tuned yet");
  Pick pick = it->second;
  // Running through its op: the sub-kernel serving now, which the op's in-use check may have changed.
  if (pick.op != nullptr) {
    GEMMTUNE_ASSIGN_OR_RETURN(pick, impl_->routed_pick(*pick.op, problem));
  }
  return PickInfo{std::string(pick.backend->name()), pick.config, pick.time_us, pick.routed};
}

std::vector<std::string> Session::backend_names() const {
  std::vector<std::string> names;
  for (const auto& backend : impl_->backends) {
    bool wanted = impl_->options.tuning.backends.empty();
    for (const std::string& name : impl_->options.tuning.backends) wanted = wanted || name == backend->name();
    if (wanted) names.emplace_back(backend->name());
  }
  return names;
}

std::map<std::string, std::string> Session::backend_versions() const {
  std::map<std::string, std::string> versions;
  for (const auto& backend : impl_->backends) versions[std::string(backend->name())] = backend->version();
  return versions;
}

const DeviceInfo& Session::device() const { return impl_->device; }

SessionStore* session_store(Session& session) { return session.impl_->store.get(); }

Status run_at_any_address(Session& session, const Problem& problem, const void* a, const void* b, void* c,
                          void* stream, const Status& refused) {
  return session.impl_->run_at_any_address(problem, {a, b, c, stream}, refused);
}

Status run_off_grid(Session& session, const Problem& problem, const GemmArgs& args, std::uintptr_t grid_mask,
                    const std::function<Status(const GemmArgs&)>& call) {
  return session.impl_->run_off_grid(problem, args, grid_mask, call);
}

Status run_with_args(GemmKernel& kernel, const GemmArgs& args) {
  if (auto* handle = dynamic_cast<GemmKernelHandle*>(&kernel)) return handle->run(args);
  return kernel.run(args.a, args.b, args.c, args.stream);
}

std::uintptr_t operand_grid_mask(const GemmKernel& kernel) {
  const auto* handle = dynamic_cast<const GemmKernelHandle*>(&kernel);
  return handle != nullptr ? handle->operand_grid_mask() : 0;
}
const SessionOptions& Session::options() const { return impl_->options; }

}  // namespace gemmtune
