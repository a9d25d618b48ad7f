# cmake -DINPUT=file.cuh -DOUTPUT=file.cc -DSYMBOL=name -P embed_source.cmake
# Writes a C++ file defining `std::string_view gemmtune::cuda::SYMBOL()` that returns the text
# of INPUT, so the library carries its kernel templates and needs no source tree at run time.
# A local include of INPUT (a line `#include "name"` naming a file beside it, which a host test
# includes too) is replaced by that file's text: NVRTC compiles one text and is given no headers.
file(READ ${INPUT} text)
get_filename_component(directory ${INPUT} DIRECTORY)
string(REGEX MATCHALL "\n#include \"[^\"]+\"" directives "${text}")
foreach(directive IN LISTS directives)
  string(REGEX REPLACE "\n#include \"([^\"]+)\"" "\\1" name "${directive}")
  file(READ ${directory}/${name} included)
  string(REPLACE "${directive}" "\n// ---- ${name}, inlined by embed_source.cmake ----\n${included}" text "${text}")
endforeach()
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
