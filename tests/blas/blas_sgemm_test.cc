// The BLAS drop-in's sgemm_ and cblas_sgemm against a double-precision column-major reference:
// every transpose letter (both cases), padded leading dimensions, alpha and beta including 0,
// row-major CBLAS; the reference's reading rules (beta = 0 leaves C unread, alpha = 0 leaves A
// and B unread: NaN there must not show); each argument check with the reference's parameter
// number, through this program's own xerbla_ and cblas_xerbla, as the reference testers define
// them; and the counters that say which calls reached the gemmtune session.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdarg>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "blas/blas_exports.h"

// This program's error handlers take the drop-in's calls (the library calls them through the
// PLT; the test links with -rdynamic), as the reference testers' do. xerbla_ then does what the
// reference CBLAS library's does inside a CBLAS call: it hands the report to cblas_xerbla.
namespace {
struct ErrorSeen {
  int xerbla_calls = 0, cblas_xerbla_calls = 0;
  int info = 0;               // the last report's parameter number
  std::string routine;        // and its routine
  int row_major_flag = -1;    // RowMajorStrg when cblas_xerbla was called
} seen;
}  // namespace

extern "C" void cblas_xerbla(int info, const char* routine, const char*, ...) {
  seen.cblas_xerbla_calls++;
  seen.info = info;
  seen.routine = routine;
  seen.row_major_flag = RowMajorStrg;
}

extern "C" void xerbla_(const char* name, const int* info, std::size_t length) {
  seen.xerbla_calls++;
  seen.info = *info;
  seen.routine.assign(name, strnlen(name, length));
  if (CBLAS_CallFromC) cblas_xerbla(*info + 1, "cblas_sgemm", "");
}

namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

struct Matrices {
  int m, n, k, lda, ldb, ldc;
  bool ta, tb;
  std::vector<float> a, b, c;
};

// Column-major operands with `pad` extra rows in every leading dimension.
Matrices make(int m, int n, int k, bool ta, bool tb, int pad, std::mt19937& rng) {
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  Matrices x{m, n, k, (ta ? k : m) + pad, (tb ? n : k) + pad, m + pad, ta, tb, {}, {}, {}};
  x.a.resize(std::size_t(x.lda) * (ta ? m : k));
  x.b.resize(std::size_t(x.ldb) * (tb ? k : n));
  x.c.resize(std::size_t(x.ldc) * n);
  for (auto& v : x.a) v = u(rng);
  for (auto& v : x.b) v = u(rng);
  for (auto& v : x.c) v = u(rng);
  return x;
}

// alpha·op(A)·op(B) + beta·C in double, column-major, as the reference defines it.
std::vector<double> expected(const Matrices& x, float alpha, float beta) {
  std::vector<double> out(x.c.begin(), x.c.end());
  for (int j = 0; j < x.n; ++j) {
    for (int i = 0; i < x.m; ++i) {
      double sum = 0;
      for (int p = 0; p < x.k; ++p) {
        const double a = x.ta ? x.a[std::size_t(p + i * x.lda)] : x.a[std::size_t(i + p * x.lda)];
        const double b = x.tb ? x.b[std::size_t(j + p * x.ldb)] : x.b[std::size_t(p + j * x.ldb)];
        sum += a * b;
      }
      const double old = x.c[std::size_t(i + j * x.ldc)];
      out[std::size_t(i + j * x.ldc)] = alpha * sum + (beta == 0.0f ? 0.0 : beta * old);
    }
  }
  return out;
}

// Elements of C inside the matrix match within float rounding of a k-term sum; padding rows are
// untouched. Returns how many elements were compared.
int expect_close(const Matrices& x, const std::vector<float>& got, const std::vector<double>& want) {
  int compared = 0;
  for (int j = 0; j < x.n; ++j) {
    for (int i = 0; i < x.ldc; ++i) {
      const std::size_t at = std::size_t(i + j * x.ldc);
      if (i >= x.m) {
        EXPECT_EQ(got[at], x.c[at]) << "padding row " << i << " of column " << j << " was written";
        continue;
      }
      EXPECT_NEAR(got[at], want[at], 1e-5 * (x.k + 2)) << "C(" << i << "," << j << ")";
      ++compared;
    }
  }
  return compared;
}

TEST(BlasSgemm, MatchesTheReferenceForEveryTransposeLetterPaddingAlphaAndBeta) {
  std::mt19937 rng(7);
  int compared = 0, calls = 0;
  const GemmtuneBlasCounts before = gemmtune_blas_counts();
  for (const char* letters : {"NN", "NT", "TN", "TT", "nc", "CN", "tc"}) {
    const bool ta = letters[0] != 'N' && letters[0] != 'n', tb = letters[1] != 'N' && letters[1] != 'n';
    for (auto [m, n, k] : {std::array{1, 1, 1}, {7, 5, 3}, {33, 17, 65}}) {
      for (int pad : {0, 3}) {
        for (auto [alpha, beta] : {std::pair{1.0f, 0.0f}, {0.5f, 1.0f}, {-2.0f, 0.25f}}) {
          Matrices x = make(m, n, k, ta, tb, pad, rng);
          std::vector<float> c = x.c;
          sgemm_(&letters[0], &letters[1], &m, &n, &k, &alpha, x.a.data(), &x.lda, x.b.data(), &x.ldb, &beta,
                 c.data(), &x.ldc, 1, 1);
          ++calls;
          compared += expect_close(x, c, expected(x, alpha, beta));
        }
      }
    }
  }
  const GemmtuneBlasCounts after = gemmtune_blas_counts();
  EXPECT_EQ(after.served - before.served, unsigned(calls)) << "every call has a product: all go to gemmtune";
  EXPECT_EQ(after.fallbacks, before.fallbacks);
  EXPECT_EQ(calls, 7 * 3 * 2 * 3);
  EXPECT_EQ(compared, 7 * 2 * 3 * (1 + 35 + 33 * 17));
}

TEST(BlasSgemm, RowMajorCblasComputesTheRowMajorProduct) {
  std::mt19937 rng(11);
  const int m = 6, n = 9, k = 4, lda = k + 2, ldb = k + 1, ldc = n + 3;  // A m×k, Bᵀ stored n×k
  std::vector<float> a(std::size_t(m) * lda), b(std::size_t(n) * ldb), c(std::size_t(m) * ldc, kNaN);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (auto& v : a) v = u(rng);
  for (auto& v : b) v = u(rng);
  cblas_sgemm(kCblasRowMajor, kCblasNoTrans, kCblasTrans, m, n, k, 1.5f, a.data(), lda, b.data(), ldb, 0.0f,
              c.data(), ldc);
  int compared = 0;
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      double want = 0;
      for (int p = 0; p < k; ++p) want += double(a[std::size_t(i * lda + p)]) * b[std::size_t(j * ldb + p)];
      EXPECT_NEAR(c[std::size_t(i * ldc + j)], 1.5 * want, 1e-5) << "C(" << i << "," << j << ")";
      ++compared;
    }
    EXPECT_TRUE(std::isnan(c[std::size_t(i * ldc + n)])) << "row " << i << ": a padding column was written";
  }
  EXPECT_EQ(compared, m * n);
}

TEST(BlasSgemm, BetaZeroNeverReadsCAndAlphaZeroNeverReadsAOrB) {
  std::mt19937 rng(3);
  for (float alpha : {1.0f, 0.0f}) {
    Matrices x = make(5, 4, 3, false, true, 1, rng);
    if (alpha == 0.0f) {
      std::fill(x.a.begin(), x.a.end(), kNaN);
      std::fill(x.b.begin(), x.b.end(), kNaN);
    }
    std::vector<float> c(x.c.size(), kNaN);
    const float beta = 0.0f;
    sgemm_("N", "T", &x.m, &x.n, &x.k, &alpha, x.a.data(), &x.lda, x.b.data(), &x.ldb, &beta, c.data(), &x.ldc, 1, 1);
    for (int j = 0; j < x.n; ++j) {
      for (int i = 0; i < x.m; ++i) {
        EXPECT_FALSE(std::isnan(c[std::size_t(i + j * x.ldc)])) << "alpha " << alpha << ": C(" << i << "," << j << ")";
      }
    }
  }
  // alpha = 0, beta = 2: C doubled, A and B (NaN) unread.
  Matrices x = make(3, 3, 2, false, false, 0, rng);
  std::fill(x.a.begin(), x.a.end(), kNaN);
  std::vector<float> c = x.c;
  const float alpha = 0.0f, beta = 2.0f;
  sgemm_("N", "N", &x.m, &x.n, &x.k, &alpha, x.a.data(), &x.lda, x.b.data(), &x.ldb, &beta, c.data(), &x.ldc, 1, 1);
  for (std::size_t i = 0; i < c.size(); ++i) EXPECT_EQ(c[i], 2.0f * x.c[i]) << i;
}

TEST(BlasSgemm, QuickReturnsLeaveCAlone) {
  float c[4] = {1, 2, 3, 4};
  const float a[4] = {kNaN, kNaN, kNaN, kNaN};
  const float one = 1.0f, zero = 0.0f;
  const int two = 2, none = 0;
  // m = 0; n = 0; alpha = 0 with beta = 1; k = 0 with beta = 1: nothing is read or written.
  sgemm_("N", "N", &none, &two, &two, &one, a, &two, a, &two, &zero, c, &two, 1, 1);
  sgemm_("N", "N", &two, &none, &two, &one, a, &two, a, &two, &zero, c, &two, 1, 1);
  sgemm_("N", "N", &two, &two, &two, &zero, a, &two, a, &two, &one, c, &two, 1, 1);
  sgemm_("N", "N", &two, &two, &none, &one, a, &two, a, &two, &one, c, &two, 1, 1);
  EXPECT_EQ((std::vector<float>(c, c + 4)), (std::vector<float>{1, 2, 3, 4}));
}

struct BadCall {
  const char* why;
  char ta, tb;
  int m, n, k, lda, ldb, ldc;
  int info;  // the reference's parameter number
};

TEST(BlasSgemm, ReportsEachBadArgumentWithTheReferenceParameterNumber) {
  const BadCall calls[] = {
      {"transa", 'X', 'N', 1, 1, 1, 1, 1, 1, 1},  {"transb", 'N', 'x', 1, 1, 1, 1, 1, 1, 2},
      {"m", 'N', 'N', -1, 1, 1, 1, 1, 1, 3},       {"n", 'N', 'N', 1, -1, 1, 1, 1, 1, 4},
      {"k", 'N', 'N', 1, 1, -1, 1, 1, 1, 5},       {"lda < m", 'N', 'N', 3, 1, 1, 2, 1, 3, 8},
      {"lda < k (T)", 'T', 'N', 1, 1, 4, 3, 4, 1, 8}, {"ldb < k", 'N', 'N', 1, 1, 4, 1, 3, 1, 10},
      {"ldb < n (T)", 'N', 'T', 1, 5, 1, 1, 4, 1, 10}, {"ldc < m", 'N', 'N', 4, 1, 1, 4, 1, 3, 13},
      {"lda = 0 with m = 0", 'N', 'N', 0, 1, 1, 0, 1, 1, 8},
      {"transa checked before m", 'Q', 'N', -1, -1, -1, 0, 0, 0, 1},
  };
  float x[64] = {};
  const float one = 1.0f;
  for (const BadCall& call : calls) {
    seen = {};
    sgemm_(&call.ta, &call.tb, &call.m, &call.n, &call.k, &one, x, &call.lda, x, &call.ldb, &one, x, &call.ldc, 1, 1);
    EXPECT_EQ(seen.xerbla_calls, 1) << call.why;
    EXPECT_EQ(seen.cblas_xerbla_calls, 0) << call.why;
    EXPECT_EQ(seen.info, call.info) << call.why;
    EXPECT_EQ(seen.routine, "SGEMM ") << call.why;
  }
}

TEST(BlasSgemm, CblasReportsThroughCblasXerblaWithCblasNumbers) {
  float x[64] = {};
  struct CblasBad {
    const char* why;
    int layout, ta, tb, m, n, k, lda, ldb, ldc;
    int info;        // what cblas_xerbla receives
    int row_major;   // RowMajorStrg at that moment
  };
  // Row-major calls reach the column-major checks with m and n (A and B) swapped, and the
  // reference reports the swapped number with RowMajorStrg set, for cblas_xerbla to swap back.
  const CblasBad calls[] = {
      {"layout", 7, kCblasNoTrans, kCblasNoTrans, 1, 1, 1, 1, 1, 1, 1, 0},
      {"transa", kCblasColMajor, 5, kCblasNoTrans, 1, 1, 1, 1, 1, 1, 2, 0},
      {"transb, row-major", kCblasRowMajor, kCblasNoTrans, 5, 1, 1, 1, 1, 1, 1, 3, 1},
      {"m", kCblasColMajor, kCblasNoTrans, kCblasNoTrans, -1, 1, 1, 1, 1, 1, 4, 0},
      {"m, row-major (reported as n)", kCblasRowMajor, kCblasNoTrans, kCblasNoTrans, -1, 1, 1, 1, 1, 1, 5, 1},
      {"k", kCblasColMajor, kCblasNoTrans, kCblasNoTrans, 1, 1, -1, 1, 1, 1, 6, 0},
      {"lda", kCblasColMajor, kCblasNoTrans, kCblasNoTrans, 3, 1, 1, 2, 1, 3, 9, 0},
      {"lda, row-major (reported as ldb)", kCblasRowMajor, kCblasNoTrans, kCblasNoTrans, 1, 1, 3, 2, 1, 1, 11, 1},
      {"ldc", kCblasColMajor, kCblasNoTrans, kCblasNoTrans, 4, 1, 1, 4, 1, 3, 14, 0},
  };
  for (const CblasBad& call : calls) {
    seen = {};
    cblas_sgemm(call.layout, call.ta, call.tb, call.m, call.n, call.k, 1.0f, x, call.lda, x, call.ldb, 1.0f, x,
                call.ldc);
    // Checks of the layout and transposes report to cblas_xerbla directly; the others through
    // xerbla_, as the reference's Fortran sgemm does.
    EXPECT_EQ(seen.xerbla_calls, call.info <= 3 ? 0 : 1) << call.why;
    EXPECT_EQ(seen.cblas_xerbla_calls, 1) << call.why;
    EXPECT_EQ(seen.info, call.info) << call.why;
    EXPECT_EQ(seen.routine, "cblas_sgemm") << call.why;
    EXPECT_EQ(seen.row_major_flag, call.row_major) << call.why;
    EXPECT_EQ(RowMajorStrg, 0) << call.why << ": the flags are set back after the report";
    EXPECT_EQ(CBLAS_CallFromC, 0) << call.why;
  }
}

}  // namespace
