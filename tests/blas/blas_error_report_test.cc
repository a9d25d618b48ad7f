// The drop-in's own xerbla_ and cblas_xerbla, where the program defines none: the reference's
// messages, then the end of the process (status 1 from xerbla_, -1 from cblas_xerbla as the
// reference CBLAS exits), and an unknown GEMMTUNE_BLAS_TUNING named, with OpenBLAS computing. Each
// call runs in a child process; its output and status are read.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>

#include "blas/blas_exports.h"

namespace {

struct Ended {
  int status = -1;  // exit status, or -1 when the child did not exit
  std::string output;  // stdout and stderr
};

Ended run_in_child(const std::function<void()>& body) {
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) return {};
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(pipe_fds[1], 1);
    dup2(pipe_fds[1], 2);
    close(pipe_fds[0]);
    body();
    std::fflush(nullptr);
    _exit(100);  // the call returned: no report ended the process
  }
  close(pipe_fds[1]);
  Ended ended;
  char buffer[512];
  for (ssize_t got; (got = read(pipe_fds[0], buffer, sizeof buffer)) > 0;) ended.output.append(buffer, std::size_t(got));
  close(pipe_fds[0]);
  int wait_status = 0;
  waitpid(pid, &wait_status, 0);
  if (WIFEXITED(wait_status)) ended.status = WEXITSTATUS(wait_status);
  return ended;
}

TEST(BlasErrorReport, SgemmPrintsTheReferenceMessageAndEndsTheProcess) {
  const Ended ended = run_in_child([] {
    float x[16] = {};
    const float one = 1.0f;
    const int two = 2, one_int = 1;
    sgemm_("N", "N", &two, &two, &two, &one, x, &two, x, &two, &one, x, &one_int, 1, 1);  // ldc < m
  });
  EXPECT_EQ(ended.status, 1);
  EXPECT_EQ(ended.output, " ** On entry to SGEMM parameter number 13 had an illegal value\n");
}

TEST(BlasErrorReport, RowMajorCblasSgemmNamesTheCblasParameter) {
  // m < 0 in a row-major call reaches the column-major checks as n (4, reported 5 with the
  // layout first); cblas_xerbla swaps it back to m, parameter 4.
  const Ended ended = run_in_child([] {
    float x[16] = {};
    cblas_sgemm(kCblasRowMajor, kCblasNoTrans, kCblasNoTrans, -1, 2, 2, 1.0f, x, 2, x, 2, 0.0f, x, 2);
  });
  EXPECT_EQ(ended.status, 255);
  EXPECT_EQ(ended.output, "Parameter 4 to routine cblas_sgemm was incorrect\n");
}

TEST(BlasErrorReport, BadTransposeInCblasSgemmSaysWhich) {
  const Ended ended = run_in_child([] {
    float x[16] = {};
    cblas_sgemm(kCblasColMajor, kCblasNoTrans, 99, 2, 2, 2, 1.0f, x, 2, x, 2, 0.0f, x, 2);
  });
  EXPECT_EQ(ended.status, 255);
  EXPECT_EQ(ended.output, "Parameter 3 to routine cblas_sgemm was incorrect\nIllegal TransB setting, 99\n");
}

TEST(BlasErrorReport, AGoodCallReturns) {
  const Ended ended = run_in_child([] {
    float a[4] = {1, 2, 3, 4}, c[4] = {};
    const float one = 1.0f, zero = 0.0f;
    const int two = 2;
    sgemm_("N", "N", &two, &two, &two, &one, a, &two, a, &two, &zero, c, &two, 1, 1);
    std::printf("%g %g %g %g\n", c[0], c[1], c[2], c[3]);
  });
  EXPECT_EQ(ended.status, 100);
  EXPECT_NE(ended.output.find("7 10 15 22\n"), std::string::npos) << ended.output;
}

TEST(BlasErrorReport, AnUnknownTuningModeIsNamedAndOpenBlasComputes) {
  const Ended ended = run_in_child([] {
    setenv("GEMMTUNE_BLAS_TUNING", "bogus", 1);  // before the first call makes the session
    float a[4] = {1, 2, 3, 4}, c[4] = {};
    const float one = 1.0f, zero = 0.0f;
    const int two = 2;
    sgemm_("N", "N", &two, &two, &two, &one, a, &two, a, &two, &zero, c, &two, 1, 1);
    std::printf("%g %g %g %g; %llu on OpenBLAS\n", c[0], c[1], c[2], c[3], gemmtune_blas_counts().fallbacks);
  });
  EXPECT_EQ(ended.status, 100);
  EXPECT_NE(ended.output.find("GEMMTUNE_BLAS_TUNING is \"bogus\"; expected fast (the default), default, "
                              "exhaustive or light"),
            std::string::npos)
      << ended.output;
  EXPECT_NE(ended.output.find("7 10 15 22; 1 on OpenBLAS\n"), std::string::npos) << ended.output;
}

}  // namespace
