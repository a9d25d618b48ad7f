# cmake -DINPUT=file.cuh -DOUTPUT=file.cc -DSYMBOL=name -P embed_source.cmake
# Writes a C++ file defining `std::string_view gemmtune::cuda::SYMBOL()` that returns the text
# of INPUT, so the library carries its kernel templates and needs no source tree at run time.
file(READ ${INPUT} text)
set(delimiter "gemmtune_src")
string(FIND "${text}" ")${delimiter}\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "${INPUT} contains the raw-string delimiter )${delimiter}\"")
endif()
file(WRITE ${OUTPUT}.tmp "// Generated from ${INPUT} by embed_source.cmake; do not edit.
#include <string_view>
namespace gemmtune::cuda {
std::string_view ${SYMBOL}() {
  static constexpr std::string_view text = R\"${delimiter}(${text})${delimiter}\";
  return text;
}
}  // namespace gemmtune::cuda
")
# Only touch OUTPUT when it changes, so an unrelated re-run rebuilds nothing.
file(COPY_FILE ${OUTPUT}.tmp ${OUTPUT} ONLY_IF_DIFFERENT)
file(REMOVE ${OUTPUT}.tmp)
