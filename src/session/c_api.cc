// The C ABI: thin wrappers that turn Status into an int and keep the message per thread.
#include "gemmtune/gemmtune.h"

#include <string>

#include "../core/c_problem.h"
#include "gemmtune/session.h"

struct gemmtune_session {
  std::unique_ptr<gemmtune::Session> session;
};

namespace {

thread_local std::string last_error;

int fail(const gemmtune::Status& status) {
  last_error = status.to_string();
  return static_cast<int>(status.code());
}

}  // namespace

extern "C" {

gemmtune_problem gemmtune_problem_make(int64_t m, int64_t n, int64_t k, gemmtune_dtype type) {
  gemmtune_problem p{};
  p.m = m;
  p.n = n;
  p.k = k;
  p.a_type = p.b_type = type;
  p.c_type = type == GEMMTUNE_S8 ? GEMMTUNE_S32 : type;
  p.a_layout = p.b_layout = GEMMTUNE_ROW_MAJOR;
  p.alpha = 1.0;
  p.beta = 0.0;
  return p;
}

int gemmtune_session_create(const char* device, gemmtune_session** out) {
  if (out == nullptr) return fail(gemmtune::invalid_argument("out is null"));
  *out = nullptr;
  gemmtune::SessionOptions options;
  options.device = device != nullptr ? device : "cpu";
  auto session = gemmtune::Session::create(options);
  if (!session.is_ok()) return fail(session.status());
  *out = new gemmtune_session{std::move(session).value()};
  return 0;
}

void gemmtune_session_destroy(gemmtune_session* session) { delete session; }

int gemmtune_gemm(gemmtune_session* session, const gemmtune_problem* problem, const void* a, const void* b,
                  void* c) {
  if (session == nullptr) return fail(gemmtune::invalid_argument("session is null"));
  auto p = gemmtune::problem_from_c(problem);
  if (!p.is_ok()) return fail(p.status());
  gemmtune::Status status = session->session->gemm(*p, a, b, c);
  if (!status.is_ok()) return fail(status);
  return 0;
}

const char* gemmtune_last_error(void) { return last_error.c_str(); }

}  // extern "C"
