// A program that uses an installed gemmtune: one product, checked against a plain loop.
// Built by CMakeLists.txt (find_package) and by Makefile (pkg-config); exits non-zero on a
// wrong result or an error.
#include <gemmtune/session.h>

#include <cmath>
#include <cstdio>
#include <vector>

int main() {
  const int m = 64, n = 48, k = 32;
  auto session = gemmtune::Session::create();
  if (!session.is_ok()) {
    std::fprintf(stderr, "consumer: %s\n", session.status().to_string().c_str());
    return 1;
  }
  auto problem = gemmtune::Problem::create(m, n, k, gemmtune::DType::f32, "nn");
  if (!problem.is_ok()) {
    std::fprintf(stderr, "consumer: %s\n", problem.status().to_string().c_str());
    return 1;
  }
  std::vector<float> a(m * k), b(k * n), c(m * n);
  for (int i = 0; i < m * k; ++i) a[i] = float(i % 7) - 3.0f;
  for (int i = 0; i < k * n; ++i) b[i] = float(i % 5) - 2.0f;
  gemmtune::Status status = (*session)->gemm(*problem, a.data(), b.data(), c.data());
  if (!status.is_ok()) {
    std::fprintf(stderr, "consumer: %s\n", status.to_string().c_str());
    return 1;
  }
  int wrong = 0;
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      float want = 0;
      for (int p = 0; p < k; ++p) want += a[i * k + p] * b[p * n + j];
      if (std::fabs(c[i * n + j] - want) > 1e-3f) ++wrong;
    }
  }
  std::printf("consumer: %dx%dx%d f32 on %s: %d of %d elements wrong\n", m, n, k,
              (*session)->pick(*problem)->backend.c_str(), wrong, m * n);
  return wrong == 0 ? 0 : 1;
}
