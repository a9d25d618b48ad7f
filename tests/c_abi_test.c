/* Compiled as C: the public C header must be valid C and link against the library. */
#include <stdio.h>

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
  gemmtune_session_destroy(session);
  if (rc != 0 || c[0] != 19 || c[1] != 22 || c[2] != 43 || c[3] != 50) {
    fprintf(stderr, "wrong result (rc %d): %g %g %g %g\n", rc, c[0], c[1], c[2], c[3]);
    return 1;
  }
  printf("1 passed, 0 failed\n");
  return 0;
}
