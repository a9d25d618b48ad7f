# The kernels' version (cmake/sources_hash.cmake) stays when only comments or the layout change,
# and moves with any change to the code: a token, a #define, a #pragma, a string. Run by ctest as
#   cmake -DCMAKE_CXX_COMPILER=... -DCMAKE_CXX_COMPILER_ID=... -DWORK=DIR -P sources_hash_test.cmake
include(${CMAKE_CURRENT_LIST_DIR}/../../cmake/sources_hash.cmake)
file(MAKE_DIRECTORY ${WORK})

set(base [=[
// The tile kernel.
#pragma once
#include "rows_block.h"
#define LANES 16  /* a vector's f32 lanes */
template <int MR>
void tile(const float* a, float* c) {
#pragma GCC unroll 8
  for (int r = 0; r < MR; ++r) c[r] = a[r] * 2;  // doubled
}
const char* name = "tile // not a comment";
]=])

set(checks 0)
# hash_of(OUT TEXT): the version of one file holding TEXT.
function(hash_of out text)
  file(WRITE ${WORK}/source.h "${text}")
  gemmtune_code_hash(hash "flags" ${WORK}/source.h)
  set(${out} ${hash} PARENT_SCOPE)
endfunction()
hash_of(base_hash "${base}")

# expect(SAME|DIFFERENT WHAT FROM TO): base with FROM replaced by TO.
macro(expect kind what from to)
  string(FIND "${base}" "${from}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "the test's own mistake: '${from}' is not in the base source")
  endif()
  string(REPLACE "${from}" "${to}" changed "${base}")
  hash_of(changed_hash "${changed}")
  if(kind STREQUAL "SAME" AND NOT changed_hash STREQUAL base_hash)
    message(FATAL_ERROR "${what} changed the version (${base_hash} -> ${changed_hash})")
  elseif(kind STREQUAL "DIFFERENT" AND changed_hash STREQUAL base_hash)
    message(FATAL_ERROR "${what} kept the version ${base_hash}")
  endif()
  math(EXPR checks "${checks} + 1")
endmacro()

if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  expect(SAME "a line comment's words" "// doubled" "// twice the input")
  expect(SAME "a block comment's words" "/* a vector's f32 lanes */" "/* lanes of one zmm */")
  expect(SAME "the first comment removed" "// The tile kernel.\n" "")
  expect(SAME "a comment added" "template <int MR>" "// one row per register\ntemplate <int MR>")
  expect(SAME "indentation" "  for (int r" "      for (int r")
  expect(SAME "a line broken in two" "c[r] = a[r] * 2;" "c[r] =\n      a[r] * 2;")
endif()
expect(DIFFERENT "a constant" "a[r] * 2" "a[r] * 3")
expect(DIFFERENT "a #define" "#define LANES 16" "#define LANES 8")
expect(DIFFERENT "a #pragma" "#pragma GCC unroll 8" "#pragma GCC unroll 4")
expect(DIFFERENT "a // inside a string" "tile // not a comment" "tile")
expect(DIFFERENT "an #include" "rows_block.h" "rows.h")

# The trailer (the compiler flags) counts too.
file(WRITE ${WORK}/source.h "${base}")
gemmtune_code_hash(other_flags "other flags" ${WORK}/source.h)
if(other_flags STREQUAL base_hash)
  message(FATAL_ERROR "other compiler flags kept the version ${base_hash}")
endif()
math(EXPR checks "${checks} + 1")
message(STATUS "sources_hash: ${checks} checks passed (compiler ${CMAKE_CXX_COMPILER_ID})")
