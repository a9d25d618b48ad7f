// The messages between a process and its kernel-verification worker: one JSON object per line.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "gemmtune/config.h"
#include "gemmtune/problem.h"

namespace gemmtune::cuda {

struct VerifyRequest {
  int device = 0;
  ProblemSpec problem;
  std::string backend;
  KernelConfig config;
  std::uint64_t seed = 1;
};

struct VerifyReply {
  bool ok = false;
  double error = -1;
  std::string reason;
  // Why it failed: wrong_result when the kernel ran and disagreed with the reference; the code of
  // the failing step otherwise (unavailable when the worker sees no device), so the caller can
  // tell a bad kernel from a missing GPU.
  ErrorCode code = ErrorCode::wrong_result;
};

std::string encode(const VerifyRequest& request);
std::string encode(const VerifyReply& reply);
Result<VerifyRequest> decode_request(const std::string& line);
Result<VerifyReply> decode_reply(const std::string& line);

}  // namespace gemmtune::cuda
