#include "gemmtune/status.h"

#include <cstdio>

namespace gemmtune {

std::string_view error_code_name(ErrorCode code) {
  switch (code) {
    case ErrorCode::ok: return "ok";
    case ErrorCode::invalid_argument: return "invalid_argument";
    case ErrorCode::unsupported: return "unsupported";
    case ErrorCode::not_found: return "not_found";
    case ErrorCode::io_error: return "io_error";
    case ErrorCode::corrupt_data: return "corrupt_data";
    case ErrorCode::unavailable: return "unavailable";
    case ErrorCode::wrong_result: return "wrong_result";
    case ErrorCode::internal: return "internal";
  }
  return "unknown";
}

std::string Status::to_string() const {
  if (is_ok()) return "ok";
  return std::string(error_code_name(code_)) + ": " + message_;
}

void abort_on_bad_result_access(const Status& status) {
  std::fprintf(stderr, "gemmtune: value() of a failed Result: %s\n", status.to_string().c_str());
  std::abort();
}

}  // namespace gemmtune
