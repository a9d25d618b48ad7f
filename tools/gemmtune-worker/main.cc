// gemmtune-worker: verifies untrusted JIT kernels in a process of its own (see
// src/backends/cuda/worker_client.h). Reads one request per line on stdin, answers one line on
// stdout. A kernel that faults or hangs takes this process down, never the caller's.
#include <iostream>
#include <string>

#include "backends/cuda/worker_protocol.h"
#include "core/backend.h"
#include "core/harness.h"

namespace {

gemmtune::cuda::VerifyReply verify(const gemmtune::cuda::VerifyRequest& request) {
  using namespace gemmtune;
  cuda::VerifyReply reply;
  auto problem = Problem::create(request.problem);
  auto device = find_device("cuda:" + std::to_string(request.device));
  if (!problem.is_ok() || !device.is_ok()) {
    const Status& failed = !problem.is_ok() ? problem.status() : device.status();
    reply.reason = failed.message();
    reply.code = failed.code();
    return reply;
  }
  const BackendList backends = create_backends(*device);
  const Backend* backend = nullptr;
  for (const auto& b : backends) {
    if (b->name() == request.backend) backend = b.get();
  }
  if (backend == nullptr) {
    reply.reason = "no backend " + request.backend;
    reply.code = ErrorCode::not_found;
    return reply;
  }
  auto kernel = backend->prepare(*problem, request.config);
  if (!kernel.is_ok()) {
    reply.reason = kernel.status().message();
    reply.code = kernel.status().code();
    return reply;
  }
  auto harness = create_harness(*device);
  Status ready = harness.is_ok() ? (*harness)->prepare(*problem, request.seed) : harness.status();
  if (!ready.is_ok()) {
    reply.reason = ready.message();
    reply.code = ready.code();
    return reply;
  }
  Status ran = run_guarded(**kernel, (*harness)->args());
  if (!ran.is_ok()) {
    // A kernel that faults at run time is a bad kernel, not a missing device.
    reply.reason = ran.message();
    return reply;
  }
  VerifyOutcome outcome = (*harness)->check();
  reply.ok = outcome.ok;
  reply.error = outcome.error;
  reply.reason = outcome.reason;
  return reply;
}

}  // namespace

int main() {
  std::string line;
  while (std::getline(std::cin, line)) {
    auto request = gemmtune::cuda::decode_request(line);
    gemmtune::cuda::VerifyReply reply;
    if (request.is_ok()) {
      reply = verify(*request);
    } else {
      reply.reason = request.status().message();
      reply.code = request.status().code();
    }
    std::cout << gemmtune::cuda::encode(reply) << std::endl;
  }
  return 0;
}
