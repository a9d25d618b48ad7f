/* C ABI over the Session API, for programs in other languages.
 * Every call returns 0 on success or a gemmtune ErrorCode; gemmtune_last_error() then gives
 * the message of the calling thread's last failure. */
#ifndef GEMMTUNE_GEMMTUNE_H
#define GEMMTUNE_GEMMTUNE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gemmtune_session gemmtune_session;

typedef enum {
  GEMMTUNE_F32 = 0,
  GEMMTUNE_F16 = 1,
  GEMMTUNE_BF16 = 2,
  GEMMTUNE_S8 = 3,
  GEMMTUNE_S32 = 4
} gemmtune_dtype;

typedef enum { GEMMTUNE_ROW_MAJOR = 0, GEMMTUNE_COL_MAJOR = 1 } gemmtune_layout;

/* Same meaning as gemmtune::ProblemSpec; a leading dimension of 0 means tightly packed. */
typedef struct {
  int64_t m, n, k;
  gemmtune_dtype a_type, b_type, c_type;
  gemmtune_layout a_layout, b_layout;
  int64_t lda, ldb, ldc;
  double alpha, beta;
} gemmtune_problem;

/* Fills a problem with tightly packed row-major operands of one dtype (s8 gives s32 output). */
gemmtune_problem gemmtune_problem_make(int64_t m, int64_t n, int64_t k, gemmtune_dtype type);

int gemmtune_session_create(const char* device, gemmtune_session** out);
void gemmtune_session_destroy(gemmtune_session* session);
int gemmtune_gemm(gemmtune_session* session, const gemmtune_problem* problem, const void* a,
                  const void* b, void* c);
/* The message of this thread's last failed call; "" if none. Valid until the next call. */
const char* gemmtune_last_error(void);

#ifdef __cplusplus
}
#endif

#endif /* GEMMTUNE_GEMMTUNE_H */
