/* Compiled as C: the public C header must be valid C and link against the library. */
#include <stdio.h>
#include <string.h>

#include "gemmtune/gemmtune.h"

int main(void) {
  gemmtune_session* session = NULL;
  if (gemmtune_session_create("cpu", &session) != 0) {
    fprintf(stderr, "create failed: %s\n", gemmtune_last_error());
    return 1;
  }
  gemmtune_problem p = gemmtune_problem_make(2, 2, 2, GEMMTUNE_F32);
  float a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8}, c[4] = {0};
  int rc = gemmtune_gemm(session, &p, a, b, c);
  if (rc != 0 || c[0] != 19 || c[1] != 22 || c[2] != 43 || c[3] != 50) {
    fprintf(stderr, "wrong result (rc %d): %g %g %g %g\n", rc, c[0], c[1], c[2], c[3]);
    return 1;
  }
  /* What a C caller can put in the struct is an error naming the field, never undefined
   * behaviour (tests/fuzz/c_problem_fuzz.cc tries the rest). */
  gemmtune_problem bad = p;
  bad.b_type = (gemmtune_dtype)99;
  gemmtune_problem bad_layout = p;
  bad_layout.a_layout = (gemmtune_layout)-1;
  gemmtune_problem huge = p;
  huge.m = huge.n = huge.k = INT64_MAX;
  struct {
    const gemmtune_problem* problem;
    const char* named;
  } refusals[] = {{NULL, "problem is null"}, {&bad, "b_type"}, {&bad_layout, "a_layout"}, {&huge, "m must be"}};
  for (size_t i = 0; i < sizeof refusals / sizeof *refusals; ++i) {
    rc = gemmtune_gemm(session, refusals[i].problem, a, b, c);
    if (rc == 0 || strstr(gemmtune_last_error(), refusals[i].named) == NULL) {
      fprintf(stderr, "refusal %zu: rc %d, message '%s' does not name '%s'\n", i, rc, gemmtune_last_error(),
              refusals[i].named);
      return 1;
    }
  }
  gemmtune_session_destroy(session);
  printf("2 passed, 0 failed\n");
  return 0;
}
