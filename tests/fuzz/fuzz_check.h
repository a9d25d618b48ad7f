// What every fuzz target checks of a parser's answer to bad input, beside not crashing: the
// error is of the code the parser promises and says what is wrong, in a message of bounded length.
#pragma once

#include <cstddef>

#include "gemmtune/status.h"

namespace gemmtune::fuzz {

// A failed invariant: libFuzzer reports the trap as a crash, with the input that caused it.
[[noreturn]] inline void fail() { __builtin_trap(); }

// An input of `input_size` bytes was refused with `status`: it must carry `code` and a message
// that names the problem (not empty) without copying out much more than the input.
inline void check_refusal(const Status& status, ErrorCode code, std::size_t input_size) {
  if (status.is_ok() || status.code() != code || status.message().empty()) fail();
  if (status.message().size() > 2 * input_size + 1024) fail();
}

}  // namespace gemmtune::fuzz
