// gemmtune-worker: verifies untrusted JIT kernels in a process of its own (see
// src/backends/cuda/worker_client.h). Reads one request per line on stdin, answers one line on
// stdout. A kernel that faults or hangs takes this process down, never the caller's.
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "backends/cuda/worker_protocol.h"
#include "core/backend.h"
#include "core/harness.h"

namespace {

// What consecutive requests share: a tuning sends every candidate of one problem in turn, so the
// backends (cuBLASLt handle, device queries) and the operands with their reference are made once
// per device and problem rather than once per candidate.
struct WorkerState {
  int device = -1;
  std::optional<gemmtune::DeviceInfo> info;
  gemmtune::BackendList backends;
  std::string operands_key;  // the problem and seed the harness holds
  std::unique_ptr<gemmtune::Harness> harness;
};

gemmtune::Status use_device(WorkerState& state, int index) {
  using namespace gemmtune;
  if (state.device == index && state.info) return Status::ok();
  GEMMTUNE_ASSIGN_OR_RETURN(DeviceInfo info, find_device("cuda:" + std::to_string(index)));
  state.harness.reset();
  state.operands_key.clear();
  state.backends = create_backends(info);
  state.info = info;
  state.device = index;
  return Status::ok();
}

gemmtune::Status use_operands(WorkerState& state, const gemmtune::Problem& problem, std::uint64_t seed,
                              const std::string& key) {
  using namespace gemmtune;
  if (state.harness && state.operands_key == key) {
    state.harness->reset_c();
    return Status::ok();
  }
  state.operands_key.clear();
  if (!state.harness) {
    GEMMTUNE_ASSIGN_OR_RETURN(state.harness, create_harness(*state.info));
  }
  GEMMTUNE_RETURN_IF_ERROR(state.harness->prepare(problem, seed));
  state.operands_key = key;
  return Status::ok();
}

gemmtune::cuda::VerifyReply verify(WorkerState& state, const gemmtune::cuda::VerifyRequest& request) {
  using namespace gemmtune;
  cuda::VerifyReply reply;
  auto fail = [&reply](const Status& failed) {
    reply.reason = failed.message();
    reply.code = failed.code();
    return reply;
  };
  auto problem = Problem::create(request.problem);
  if (!problem.is_ok()) return fail(problem.status());
  if (Status device = use_device(state, request.device); !device.is_ok()) return fail(device);
  const Backend* backend = nullptr;
  for (const auto& b : state.backends) {
    if (b->name() == request.backend) backend = b.get();
  }
  if (backend == nullptr) return fail(Status(ErrorCode::not_found, "no backend " + request.backend));
  auto kernel = backend->prepare(*problem, request.config);
  if (!kernel.is_ok()) return fail(kernel.status());
  const std::string operands_key = cuda::encode(cuda::VerifyRequest{request.device, request.problem, "", {}, request.seed});
  if (Status ready = use_operands(state, *problem, request.seed, operands_key); !ready.is_ok()) return fail(ready);
  Status ran = run_guarded(**kernel, state.harness->args());
  if (!ran.is_ok()) {
    // A kernel that faults at run time is a bad kernel, not a missing device.
    reply.reason = ran.message();
    return reply;
  }
  VerifyOutcome outcome = state.harness->check();
  reply.ok = outcome.ok;
  reply.error = outcome.error;
  reply.reason = outcome.reason;
  return reply;
}

}  // namespace

int main() {
  WorkerState state;
  std::string line;
  while (std::getline(std::cin, line)) {
    auto request = gemmtune::cuda::decode_request(line);
    gemmtune::cuda::VerifyReply reply;
    if (request.is_ok()) {
      reply = verify(state, *request);
    } else {
      reply.reason = request.status().message();
      reply.code = request.status().code();
    }
    std::cout << gemmtune::cuda::encode(reply) << std::endl;
  }
  return 0;
}
