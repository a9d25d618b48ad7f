// Operands for checking and timing a kernel: random inputs of the problem's dtypes, and a C
// buffer with guard bytes around it and in the padding between rows, so writes outside C are
// caught as well as elements left unwritten.
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>
#include <vector>

#include "gemmtune/problem.h"

namespace gemmtune {

// splitmix64: fast, deterministic for a seed, good enough for test data.
class Random {
 public:
  explicit Random(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next();
  double uniform(double lo, double hi);
  // As if next() had been called `count` times (splitmix64 steps its state by a constant), so
  // that parts of one stream can be drawn on several threads.
  void skip(std::uint64_t count) { state_ += count * 0x9e3779b97f4a7c15ull; }

 private:
  std::uint64_t state_;
};

// Storage that starts 16 bytes past a 64-byte line for every size: where glibc puts a large
// std::vector<float> (past the 16-byte header of an mmap'd chunk), the operands the timing
// has always meant to see (docs/measuring.md). A small vector's offset follows the heap's
// state instead, and a small product's time follows the offset: on the development VM
// 1 × 64 × 64 took 52 ns on gemmtune's tile kernel and 62 ns on libxsmm's with B on a line, 95
// and 90 ns off it (bench/results/2026-11-24b-cpu-kernels/probe-alignment.txt). Two runs of
// one build timed such shapes up to 1.7× apart, gemmtune and its peers alike.
template <class T>
struct PastLine {
  using value_type = T;
  static constexpr std::size_t kLine = 64, kOffset = 16;
  PastLine() = default;
  template <class U>
  PastLine(const PastLine<U>&) {}
  T* allocate(std::size_t n) {
    auto* line = static_cast<std::byte*>(::operator new(n * sizeof(T) + kLine, std::align_val_t{kLine}));
    return reinterpret_cast<T*>(line + kOffset);
  }
  void deallocate(T* p, std::size_t) {
    ::operator delete(reinterpret_cast<std::byte*>(p) - kOffset, std::align_val_t{kLine});
  }
  template <class U>
  bool operator==(const PastLine<U>&) const {
    return true;
  }
};
using OperandBytes = std::vector<std::uint8_t, PastLine<std::uint8_t>>;

class TestBuffers {
 public:
  static constexpr std::size_t kGuardBytes = 256;
  static constexpr std::uint8_t kGuardByte = 0xA5;

  // Fills A and B with random values (floats in [-1, 1], s8 over its whole range) and C with
  // random values when beta != 0 (C is an input then).
  TestBuffers(const Problem& problem, std::uint64_t seed);

  const void* a() const { return a_.data(); }
  const void* b() const { return b_.data(); }
  // Overwrites element (i, p) of A or (p, j) of B, in the operand's dtype: tests plant NaN, an
  // infinity or a zero there. A Reference computed before no longer describes the buffers.
  void set_a(std::int64_t i, std::int64_t p, double value);
  void set_b(std::int64_t p, std::int64_t j, double value);
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
  OperandBytes a_, b_, c_, c_initial_;  // C's guard bytes are whole lines: C is 16 bytes past one too
};

}  // namespace gemmtune
