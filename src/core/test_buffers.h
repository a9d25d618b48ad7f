// Operands for checking and timing a kernel: random inputs of the problem's dtypes, and a C
// buffer with guard bytes around it and in the padding between rows, so writes outside C are
// caught as well as elements left unwritten.
#pragma once

#include <cstdint>
#include <vector>

#include "gemmtune/problem.h"

namespace gemmtune {

// splitmix64: fast, deterministic for a seed, good enough for test data.
class Random {
 public:
  explicit Random(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next();
  double uniform(double lo, double hi);

 private:
  std::uint64_t state_;
};

class TestBuffers {
 public:
  static constexpr std::size_t kGuardBytes = 256;
  static constexpr std::uint8_t kGuardByte = 0xA5;

  // Fills A and B with random values (floats in [-1, 1], s8 over its whole range) and C with
  // random values when beta != 0 (C is an input then).
  TestBuffers(const Problem& problem, std::uint64_t seed);

  const void* a() const { return a_.data(); }
  const void* b() const { return b_.data(); }
  void* c() { return c_.data() + kGuardBytes; }
  const void* c() const { return c_.data() + kGuardBytes; }
  const void* c_initial() const { return c_initial_.data() + kGuardBytes; }
  // C with its guard bytes before and after: what a device copy of C must mirror.
  std::uint8_t* c_with_guards() { return c_.data(); }
  std::size_t c_bytes_with_guards() const { return c_.size(); }

  // Restores C to its initial state; with beta == 0 the elements are poisoned instead (NaN for
  // floats, a fixed pattern for s32) so an element the kernel skips cannot pass.
  void reset_c();
  // Empty if every guard byte (before, after and in the row padding of C) is intact, else
  // what was overwritten.
  std::string check_guards() const;

 private:
  const Problem problem_;
  std::vector<std::uint8_t> a_, b_, c_, c_initial_;
};

}  // namespace gemmtune
