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
};

std::string encode(const VerifyRequest& request);
std::string encode(const VerifyReply& reply);
Result<VerifyRequest> decode_request(const std::string& line);
Result<VerifyReply> decode_reply(const std::string& line);

}  // namespace gemmtune::cuda
