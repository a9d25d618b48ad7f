// The symbols the BLAS drop-in defines (libgemmtune_blas.so.3, soname libblas.so.3): the
// reference BLAS and CBLAS names, with the reference's signatures. Every other routine of
// libblas.so.3 is OpenBLAS's own, found there by the dynamic loader (CMakeLists.txt).
#pragma once

#include <cstddef>

#define GEMMTUNE_BLAS_EXPORT extern "C" __attribute__((visibility("default")))

// The reference CBLAS's enums, by value (cblas.h).
enum GemmtuneCblasLayout { kCblasRowMajor = 101, kCblasColMajor = 102 };
enum GemmtuneCblasTranspose { kCblasNoTrans = 111, kCblasTrans = 112, kCblasConjTrans = 113 };

// The reference CBLAS keeps these two flags in globals that its testers read (c_xerbla.c
// declares `extern int RowMajorStrg`): a program links against them, and a tester's copy
// relocation makes its own the one every library uses, so they are read and written through
// the GOT, never cached.
GEMMTUNE_BLAS_EXPORT int RowMajorStrg;
GEMMTUNE_BLAS_EXPORT int CBLAS_CallFromC;

// Fortran: the routine's name is blank-padded, `length` its hidden length argument.
GEMMTUNE_BLAS_EXPORT void xerbla_(const char* name, const int* info, std::size_t length);
GEMMTUNE_BLAS_EXPORT void cblas_xerbla(int info, const char* routine, const char* format, ...);

GEMMTUNE_BLAS_EXPORT void sgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k,
                                 const float* alpha, const float* a, const int* lda, const float* b, const int* ldb,
                                 const float* beta, float* c, const int* ldc, std::size_t transa_length,
                                 std::size_t transb_length);
GEMMTUNE_BLAS_EXPORT void cblas_sgemm(int layout, int transa, int transb, int m, int n, int k, float alpha,
                                      const float* a, int lda, const float* b, int ldb, float beta, float* c, int ldc);

// Counters of what the drop-in did, for GEMMTUNE_BLAS_STATS and the tests.
struct GemmtuneBlasCounts {
  unsigned long long calls;           // sgemm_ and cblas_sgemm calls
  unsigned long long served;          // products computed by the gemmtune session
  unsigned long long quick_returns;   // nothing to do (m or n zero; alpha or k zero with beta one)
  unsigned long long scaled;          // C = beta·C alone (alpha or k zero)
  unsigned long long errors;          // reported to xerbla_ / cblas_xerbla
  unsigned long long fallbacks;       // the session failed; OpenBLAS computed the product
};
GEMMTUNE_BLAS_EXPORT GemmtuneBlasCounts gemmtune_blas_counts(void);
