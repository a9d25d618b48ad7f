#include "worker_protocol.h"

#include <optional>
#include <utility>

#include "../../core/enum_codes.h"
#include "../../core/json_reading.h"

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

namespace {

Status bad_request(const std::string& why) { return Status(ErrorCode::corrupt_data, "bad verify request: " + why); }

// The integer field `name` of T's range; nlohmann's get<T>() would convert 1e300 (undefined)
// or truncate 2^40 without a word.
template <class T>
Result<T> integer_field(const nlohmann::json& j, const char* name) {
  auto it = j.find(name);
  if (it == j.end()) return bad_request(std::string("lacks '") + name + "'");
  const std::optional<T> value = json_integer<T>(*it);
  if (!value) return bad_request(std::string("'") + name + "' is " + it->dump() + ", not an integer of its range");
  return *value;
}

}  // namespace

Result<VerifyRequest> decode_request(const std::string& line) {
  if (!json_nests_within(line)) return bad_request("nests deeper than " + std::to_string(kMaxJsonNesting) + " levels");
  const nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return bad_request("not valid JSON");
  if (!j.is_object()) return bad_request("not a JSON object");
  VerifyRequest r;
  ProblemSpec& p = r.problem;
  GEMMTUNE_ASSIGN_OR_RETURN(r.device, integer_field<int>(j, "device"));
  GEMMTUNE_ASSIGN_OR_RETURN(p.m, integer_field<std::int64_t>(j, "m"));
  GEMMTUNE_ASSIGN_OR_RETURN(p.n, integer_field<std::int64_t>(j, "n"));
  GEMMTUNE_ASSIGN_OR_RETURN(p.k, integer_field<std::int64_t>(j, "k"));
  for (const auto& [name, type] : {std::pair{"a_type", &p.a_type}, std::pair{"b_type", &p.b_type},
                                   std::pair{"c_type", &p.c_type}}) {
    GEMMTUNE_ASSIGN_OR_RETURN(std::int64_t code, integer_field<std::int64_t>(j, name));
    auto dtype = dtype_from_code(code);
    if (!dtype.is_ok()) return bad_request(std::string(name) + ": " + dtype.status().message());
    *type = *dtype;
  }
  for (const auto& [name, layout] : {std::pair{"a_layout", &p.a_layout}, std::pair{"b_layout", &p.b_layout}}) {
    GEMMTUNE_ASSIGN_OR_RETURN(std::int64_t code, integer_field<std::int64_t>(j, name));
    auto checked = layout_from_code(code);
    if (!checked.is_ok()) return bad_request(std::string(name) + ": " + checked.status().message());
    *layout = *checked;
  }
  GEMMTUNE_ASSIGN_OR_RETURN(p.lda, integer_field<std::int64_t>(j, "lda"));
  GEMMTUNE_ASSIGN_OR_RETURN(p.ldb, integer_field<std::int64_t>(j, "ldb"));
  GEMMTUNE_ASSIGN_OR_RETURN(p.ldc, integer_field<std::int64_t>(j, "ldc"));
  GEMMTUNE_ASSIGN_OR_RETURN(r.seed, integer_field<std::uint64_t>(j, "seed"));
  try {
    p.alpha = j.at("alpha").get<double>();
    p.beta = j.at("beta").get<double>();
    p.allow_tf32 = j.at("allow_tf32").get<bool>();
    r.backend = j.at("backend").get<std::string>();
    auto config = KernelConfig::parse(j.at("config").get<std::string>());
    if (!config.is_ok()) return bad_request(config.status().message());
    r.config = *config;
  } catch (const nlohmann::json::exception& e) {
    return bad_request(json_error_excerpt(e));
  }
  return r;
}

Result<VerifyReply> decode_reply(const std::string& line) {
  if (!json_nests_within(line)) {
    return Status(ErrorCode::corrupt_data, "bad verify reply: nests deeper than " + std::to_string(kMaxJsonNesting) + " levels");
  }
  try {
    const nlohmann::json j = nlohmann::json::parse(line);
    std::optional<int> code = int(ErrorCode::wrong_result);
    if (auto it = j.find("code"); it != j.end()) code = json_integer<int>(*it);
    if (!code || *code < int(ErrorCode::ok) || *code > int(ErrorCode::internal)) {
      return Status(ErrorCode::corrupt_data, "bad verify reply: unknown error code " + j.at("code").dump());
    }
    return VerifyReply{j.at("ok").get<bool>(), j.at("error").get<double>(), j.at("reason").get<std::string>(),
                       ErrorCode(*code)};
  } catch (const nlohmann::json::exception& e) {
    return Status(ErrorCode::corrupt_data, "bad verify reply: " + json_error_excerpt(e));
  }
}

}  // namespace gemmtune::cuda
