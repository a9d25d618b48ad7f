// Error reporting as the reference BLAS and CBLAS do it (netlib xerbla.f, CBLAS xerbla.c and
// cblas_xerbla.c): the same routine names, parameter numbers and messages. A program (the
// reference testers, for one) that defines xerbla_ or cblas_xerbla itself gets the calls
// instead: these are default-visibility symbols, called through the PLT.
#include <cctype>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "blas_exports.h"

int RowMajorStrg = 0;
int CBLAS_CallFromC = 0;

void xerbla_(const char* name, const int* info, std::size_t length) {
  std::string routine(name, strnlen(name, length));
  while (!routine.empty() && routine.back() == ' ') routine.pop_back();
  if (CBLAS_CallFromC) {
    // A Fortran-level check inside a CBLAS call: CBLAS numbers its arguments one higher (the
    // layout comes first) and names the routine cblas_<name>.
    std::string cblas_name = "cblas_";
    for (char ch : routine) cblas_name += char(std::tolower(static_cast<unsigned char>(ch)));
    cblas_xerbla(*info + 1, cblas_name.c_str(), "");
    return;
  }
  std::printf(" ** On entry to %s parameter number %2d had an illegal value\n", routine.c_str(), *info);
  std::fflush(stdout);
  // The reference ends the program here (Fortran STOP); this ends it with a failure status.
  std::exit(EXIT_FAILURE);
}

void cblas_xerbla(int info, const char* routine, const char* format, ...) {
  // A row-major gemm call reached the column-major code with A and B (and m and n) swapped:
  // the reference swaps the parameter numbers back before reporting them.
  if (RowMajorStrg && std::strstr(routine, "gemm") != nullptr) {
    if (info == 5) info = 4;
    else if (info == 4) info = 5;
    else if (info == 11) info = 9;
    else if (info == 9) info = 11;
  }
  if (info != 0) std::fprintf(stderr, "Parameter %d to routine %s was incorrect\n", info, routine);
  va_list args;
  va_start(args, format);
  std::vfprintf(stderr, format, args);
  va_end(args);
  std::exit(-1);
}
