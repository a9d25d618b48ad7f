// sgemm_ and cblas_sgemm with the reference BLAS's semantics (netlib sgemm.f, CBLAS
// cblas_sgemm.c): the same argument checks in the same order, the same quick returns, beta = 0
// never reading C, alpha = 0 never reading A or B. Every product goes to the gemmtune session.
//
// BLAS matrices are column-major; gemmtune's C is row-major. A column-major m×n C with leading
// dimension ldc is the row-major n×m Cᵀ with the same ldc, and Cᵀ = op(B)ᵀ·op(A)ᵀ, so the
// session computes a problem of n×m×k with A and B swapped: op(B)ᵀ is B read row-major when B
// is not transposed (k×n column-major is n×k row-major) and column-major when it is, likewise
// op(A)ᵀ. No operand is copied.
#include <dlfcn.h>

#include <cstdio>
#include <mutex>

#include "blas_exports.h"
#include "blas_session.h"

namespace gemmtune::blas {
namespace {

// LSAME: the reference compares the first character, ignoring case.
bool same_letter(char given, char upper) { return given == upper || given == upper + ('a' - 'A'); }
int at_least_one(int v) { return v < 1 ? 1 : v; }

// The reference sgemm's checks in its order: 0, or the position of the first bad argument.
int argument_error(char transa, char transb, int m, int n, int k, int lda, int ldb, int ldc) {
  const bool nota = same_letter(transa, 'N'), notb = same_letter(transb, 'N');
  const int rows_a = nota ? m : k, rows_b = notb ? k : n;
  if (!nota && !same_letter(transa, 'C') && !same_letter(transa, 'T')) return 1;
  if (!notb && !same_letter(transb, 'C') && !same_letter(transb, 'T')) return 2;
  if (m < 0) return 3;
  if (n < 0) return 4;
  if (k < 0) return 5;
  if (lda < at_least_one(rows_a)) return 8;
  if (ldb < at_least_one(rows_b)) return 10;
  if (ldc < at_least_one(m)) return 13;
  return 0;
}

// C = beta·C, column by column; beta = 0 writes zeros without reading C, as the reference does.
void scale_c(int m, int n, float beta, float* c, int ldc) {
  for (long j = 0; j < n; ++j) {
    float* column = c + j * long(ldc);
    for (int i = 0; i < m; ++i) column[i] = beta == 0.0f ? 0.0f : beta * column[i];
  }
}

using SgemmFn = void (*)(const char*, const char*, const int*, const int*, const int*, const float*, const float*,
                         const int*, const float*, const int*, const float*, float*, const int*, std::size_t,
                         std::size_t);

// OpenBLAS's own sgemm_ (this library shadows the name for everyone else): where the session
// fails, the product is still computed.
void openblas_sgemm(char transa, char transb, int m, int n, int k, float alpha, const float* a, int lda,
                    const float* b, int ldb, float beta, float* c, int ldc) {
  static const SgemmFn sgemm = [] {
    void* handle = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
    return handle == nullptr ? nullptr : reinterpret_cast<SgemmFn>(dlsym(handle, "sgemm_"));
  }();
  counters().fallbacks++;
  if (sgemm == nullptr) {
    std::fprintf(stderr, "gemmtune BLAS: libopenblas.so.0 not found; C left unchanged\n");
    return;
  }
  sgemm(&transa, &transb, &m, &n, &k, &alpha, a, &lda, b, &ldb, &beta, c, &ldc, 1, 1);
}

// The column-major sgemm after its checks. `from_cblas`/`row_major` tell a failed check how the
// reference would report it (through cblas_xerbla, with row-major parameter numbers swapped).
void column_major_sgemm(char transa, char transb, int m, int n, int k, float alpha, const float* a, int lda,
                        const float* b, int ldb, float beta, float* c, int ldc, bool from_cblas, bool row_major) {
  if (int info = argument_error(transa, transb, m, n, k, lda, ldb, ldc); info != 0) {
    counters().errors++;
    // Set only here, not on every call, so that threads calling cblas_sgemm never write them.
    CBLAS_CallFromC = from_cblas;
    RowMajorStrg = row_major;
    xerbla_("SGEMM ", &info, 6);
    CBLAS_CallFromC = 0;
    RowMajorStrg = 0;
    return;
  }
  if (m == 0 || n == 0 || ((alpha == 0.0f || k == 0) && beta == 1.0f)) {
    counters().quick_returns++;
    return;
  }
  if (alpha == 0.0f || k == 0) {
    counters().scaled++;
    scale_c(m, n, beta, c, ldc);
    return;
  }
  ProblemSpec spec;
  spec.m = n;
  spec.n = m;
  spec.k = k;
  spec.a_layout = same_letter(transb, 'N') ? Layout::row_major : Layout::col_major;
  spec.b_layout = same_letter(transa, 'N') ? Layout::row_major : Layout::col_major;
  spec.lda = ldb;
  spec.ldb = lda;
  spec.ldc = ldc;
  spec.alpha = alpha;
  spec.beta = beta;
  Session* session = blas_session();
  Result<Problem> problem = Problem::create(spec);
  Status status = !problem.is_ok() ? problem.status()
                  : session == nullptr ? Status(ErrorCode::unavailable, "no session")
                                       : session->gemm(*problem, b, a, c);
  if (status.is_ok()) {
    counters().served++;
    return;
  }
  if (session != nullptr) {
    static std::once_flag reported;
    std::call_once(reported, [&] {
      std::fprintf(stderr, "gemmtune BLAS: %s; such calls run on OpenBLAS\n", status.to_string().c_str());
    });
  }
  openblas_sgemm(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

// CblasNoTrans, CblasTrans, CblasConjTrans as the Fortran letter; 0 for anything else.
char transpose_letter(int transpose) {
  switch (transpose) {
    case kCblasNoTrans: return 'N';
    case kCblasTrans: return 'T';
    case kCblasConjTrans: return 'C';
    default: return 0;
  }
}

// cblas_xerbla with RowMajorStrg as the reference leaves it for the call.
void cblas_error(bool row_major, int info, const char* format, int value) {
  counters().errors++;
  RowMajorStrg = row_major;
  cblas_xerbla(info, "cblas_sgemm", format, value);
  RowMajorStrg = 0;
}

}  // namespace
}  // namespace gemmtune::blas

using namespace gemmtune::blas;

void sgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k, const float* alpha,
            const float* a, const int* lda, const float* b, const int* ldb, const float* beta, float* c, const int* ldc,
            std::size_t, std::size_t) {
  counters().calls++;
  column_major_sgemm(*transa, *transb, *m, *n, *k, *alpha, a, *lda, b, *ldb, *beta, c, *ldc, false, false);
}

void cblas_sgemm(int layout, int transa, int transb, int m, int n, int k, float alpha, const float* a, int lda,
                 const float* b, int ldb, float beta, float* c, int ldc) {
  counters().calls++;
  if (layout != kCblasColMajor && layout != kCblasRowMajor) {
    cblas_error(false, 1, "Illegal layout setting, %d\n", layout);
    return;
  }
  const bool row_major = layout == kCblasRowMajor;
  const char ta = transpose_letter(transa), tb = transpose_letter(transb);
  if (ta == 0) {
    cblas_error(row_major, 2, "Illegal TransA setting, %d\n", transa);
    return;
  }
  if (tb == 0) {
    cblas_error(row_major, 3, "Illegal TransB setting, %d\n", transb);
    return;
  }
  // Row-major C = A·B is column-major Cᵀ = Bᵀ·Aᵀ: the reference calls the Fortran sgemm with
  // the operands, their transposes and m and n swapped.
  if (row_major) {
    column_major_sgemm(tb, ta, n, m, k, alpha, b, ldb, a, lda, beta, c, ldc, true, true);
  } else {
    column_major_sgemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, true, false);
  }
}
