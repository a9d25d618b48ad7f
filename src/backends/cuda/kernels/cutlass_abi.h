// The C interface between gemmtune and the shared objects it builds from gemm_cutlass.cuh:
// the problem an instance is created for, and the functions each object exports. Included by
// the backend (cutlass_backend.cc) and, inlined by embed_source.cmake, by the kernel text.
// Include guards rather than #pragma once: embed_source.cmake inlines this file into the kernel
// text, where #pragma once would stand in the main file.
#ifndef GEMMTUNE_CUTLASS_ABI_H
#define GEMMTUNE_CUTLASS_ABI_H

// Bumped whenever the struct or the functions change, so that an object built for another
// layout is refused rather than called.
#define GT_CUTLASS_ABI 2

struct GtCutlassProblem {
  long long m, n, k;
  long long lda, ldb, ldc;  // in elements
  double alpha, beta;
  int device;    // CUDA device index
  int sm_count;  // SMs the persistent grid may use
  // The tile scheduler's order, chosen per call rather than per object: tiles of `swizzle`
  // (1, 2, 4, 8) rows or columns run together so that they share operand tiles in L2.
  int swizzle;
};

// What each object exports (extern "C"); every function returning int returns 0 on success and
// otherwise writes why (at most why_len bytes, NUL included).
typedef int (*GtCutlassAbiFn)(void);
typedef int (*GtCutlassCreateFn)(const GtCutlassProblem* problem, void** handle, char* why, int why_len);
typedef unsigned long long (*GtCutlassWorkspaceFn)(void* handle);
typedef int (*GtCutlassRunFn)(void* handle, const void* a, const void* b, void* c, void* workspace, void* stream,
                              char* why, int why_len);
typedef void (*GtCutlassDestroyFn)(void* handle);

#endif  // GEMMTUNE_CUTLASS_ABI_H
