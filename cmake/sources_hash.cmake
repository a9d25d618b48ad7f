# A kernel family's version: the first 16 hex digits of the SHA-256 of its sources' code and then
# a trailer (its compiler flags). The version keys stored picks and the cost models trained on
# the kernels: a new version re-times the picks and retires the CPU models, which only the
# machine of each one can train again.
#
# What is hashed is each source's code, not its text. GCC's preprocessor reads the file as
# already preprocessed (-fpreprocessed: no macro expanded, no file included, #if and #pragma
# kept) and drops its comments. Every run of white space becomes one space. So an edit of a
# comment or of the layout keeps every version, and a change to a token does not: a kernel's
# speed cannot depend on either. Other compilers hash the text as it is, which is stricter.

# The code of `source` as the version sees it, into `out`.
function(gemmtune_source_code source out)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    # stderr dropped: "#pragma once in main file" for every header.
    execute_process(COMMAND ${CMAKE_CXX_COMPILER} -x c++ -fpreprocessed -dD -E -P ${source}
                    OUTPUT_VARIABLE code ERROR_VARIABLE ignored RESULT_VARIABLE failed)
    if(failed)
      message(FATAL_ERROR "cannot read the code of ${source} for its kernels' version "
                          "(${CMAKE_CXX_COMPILER} -fpreprocessed -E: ${ignored})")
    endif()
  else()
    file(READ ${source} code)
  endif()
  string(REGEX REPLACE "[ \t\r\n]+" " " code "${code}")
  string(STRIP "${code}" code)
  set(${out} "${code}" PARENT_SCOPE)
endfunction()

# gemmtune_code_hash(OUT TRAILER SOURCE...): the version of SOURCE... compiled with TRAILER.
function(gemmtune_code_hash out trailer)
  set(text "")
  foreach(source ${ARGN})
    gemmtune_source_code(${source} code)
    string(APPEND text "${code}\n")
  endforeach()
  string(APPEND text "${trailer}")
  string(SHA256 hash "${text}")
  string(SUBSTRING ${hash} 0 16 hash)
  set(${out} ${hash} PARENT_SCOPE)
endfunction()

# gemmtune_sources_hash(OUT TRAILER SOURCE...): the same, and each source a configure dependency
# (reading a file is none: without it an edited kernel kept the old version in an incremental
# build).
function(gemmtune_sources_hash out trailer)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${ARGN})
  gemmtune_code_hash(hash "${trailer}" ${ARGN})
  set(${out} ${hash} PARENT_SCOPE)
endfunction()
