#include "worker_protocol.h"

namespace gemmtune::cuda {

std::string encode(const VerifyRequest& r) {
  const ProblemSpec& p = r.problem;
  nlohmann::json j = {{"device", r.device},
                      {"m", p.m},
                      {"n", p.n},
                      {"k", p.k},
                      {"a_type", int(p.a_type)},
                      {"b_type", int(p.b_type)},
                      {"c_type", int(p.c_type)},
                      {"a_layout", int(p.a_layout)},
                      {"b_layout", int(p.b_layout)},
                      {"lda", p.lda},
                      {"ldb", p.ldb},
                      {"ldc", p.ldc},
                      {"alpha", p.alpha},
                      {"beta", p.beta},
                      {"allow_tf32", p.allow_tf32},
                      {"backend", r.backend},
                      {"config", r.config.to_string()},
                      {"seed", r.seed}};
  return j.dump();
}

std::string encode(const VerifyReply& r) {
  return nlohmann::json{{"ok", r.ok}, {"error", r.error}, {"reason", r.reason}, {"code", int(r.code)}}.dump();
}

Result<VerifyRequest> decode_request(const std::string& line) {
  try {
    const nlohmann::json j = nlohmann::json::parse(line);
    VerifyRequest r;
    r.device = j.at("device").get<int>();
    ProblemSpec& p = r.problem;
    p.m = j.at("m").get<std::int64_t>();
    p.n = j.at("n").get<std::int64_t>();
    p.k = j.at("k").get<std::int64_t>();
    p.a_type = DType(j.at("a_type").get<int>());
    p.b_type = DType(j.at("b_type").get<int>());
    p.c_type = DType(j.at("c_type").get<int>());
    p.a_layout = Layout(j.at("a_layout").get<int>());
    p.b_layout = Layout(j.at("b_layout").get<int>());
    p.lda = j.at("lda").get<std::int64_t>();
    p.ldb = j.at("ldb").get<std::int64_t>();
    p.ldc = j.at("ldc").get<std::int64_t>();
    p.alpha = j.at("alpha").get<double>();
    p.beta = j.at("beta").get<double>();
    p.allow_tf32 = j.at("allow_tf32").get<bool>();
    r.backend = j.at("backend").get<std::string>();
    GEMMTUNE_ASSIGN_OR_RETURN(r.config, KernelConfig::parse(j.at("config").get<std::string>()));
    r.seed = j.at("seed").get<std::uint64_t>();
    return r;
  } catch (const nlohmann::json::exception& e) {
    return Status(ErrorCode::corrupt_data, std::string("bad verify request: ") + e.what());
  }
}

Result<VerifyReply> decode_reply(const std::string& line) {
  try {
    const nlohmann::json j = nlohmann::json::parse(line);
    const int code = j.value("code", int(ErrorCode::wrong_result));
    if (code < int(ErrorCode::ok) || code > int(ErrorCode::internal)) {
      return Status(ErrorCode::corrupt_data, "bad verify reply: unknown error code " + std::to_string(code));
    }
    return VerifyReply{j.at("ok").get<bool>(), j.at("error").get<double>(), j.at("reason").get<std::string>(),
                       ErrorCode(code)};
  } catch (const nlohmann::json::exception& e) {
    return Status(ErrorCode::corrupt_data, std::string("bad verify reply: ") + e.what());
  }
}

}  // namespace gemmtune::cuda
