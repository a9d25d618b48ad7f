#include "test_buffers.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <string>

#include "reference_gemm.h"
#include "usable_cpus.h"

namespace gemmtune {

std::uint64_t Random::next() {
  std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

double Random::uniform(double lo, double hi) { return lo + (hi - lo) * double(next() >> 11) * 0x1.0p-53; }

static_assert(TestBuffers::kGuardBytes % 64 == 0, "C lies kGuardBytes into its buffer, at the operands' offset in a line");

namespace {

// Below a million elements a thread's start costs more than it saves.
constexpr std::int64_t kElementsPerChunk = std::int64_t(1) << 20;

// Runs body(begin, end) over [0, count) in chunks of at least `min_chunk` on the usable CPUs
// (inline when there is one chunk). The operands of an 8192³ product are 134 M elements: 2.4 s
// on one core of the development VM, and the GPU tuning waited on them
// (2026-11-27-h100-compile-time.md).
void for_chunks(std::int64_t count, std::int64_t min_chunk, const std::function<void(std::int64_t, std::int64_t)>& body) {
  const std::int64_t workers = std::clamp<std::int64_t>(count / std::max<std::int64_t>(min_chunk, 1), 1, usable_cpus());
  run_workers(int(workers), [&](int t) { body(count * t / workers, count * (t + 1) / workers); });
}

// Element i takes the generator's (i+1)-th value from its state on entry, whichever thread
// draws it, so a seed gives the same operands on any machine.
void fill_random(OperandBytes& bytes, std::size_t offset, std::int64_t elements, DType type,
                 Random& rng) {
  void* data = bytes.data() + offset;
  const Random start = rng;
  rng.skip(std::uint64_t(elements));
  for_chunks(elements, kElementsPerChunk, [&](std::int64_t begin, std::int64_t end) {
    Random local = start;
    local.skip(std::uint64_t(begin));
    for (std::int64_t i = begin; i < end; ++i) {
      if (type == DType::s8 || type == DType::s32) {
        // The full s8 range: saturating or sign-mishandling kernels fail on the extremes.
        store_from_double(data, type, i, double(std::int64_t(local.next() % 256) - 128));
      } else {
        store_from_double(data, type, i, local.uniform(-1.0, 1.0));
      }
    }
  });
}

}  // namespace

TestBuffers::TestBuffers(const Problem& problem, std::uint64_t seed) : problem_(problem) {
  Random rng(seed);
  a_.resize(std::size_t(problem.a_elements()) * dtype_size(problem.a_type()) + 1);
  b_.resize(std::size_t(problem.b_elements()) * dtype_size(problem.b_type()) + 1);
  fill_random(a_, 0, problem.a_elements(), problem.a_type(), rng);
  fill_random(b_, 0, problem.b_elements(), problem.b_type(), rng);
  const std::size_t c_bytes = std::size_t(problem.c_elements()) * dtype_size(problem.c_type());
  c_initial_.assign(c_bytes + 2 * kGuardBytes, kGuardByte);
  if (problem.beta() != 0.0) {
    // Only the m × n elements: the padding between rows stays guard bytes.
    void* c = c_initial_.data() + kGuardBytes;
    for (std::int64_t i = 0; i < problem.m(); ++i) {
      for (std::int64_t j = 0; j < problem.n(); ++j) {
        const double value = problem.c_type() == DType::s32 ? double(std::int64_t(rng.next() % 2001) - 1000)
                                                            : rng.uniform(-1.0, 1.0);
        store_from_double(c, problem.c_type(), problem.c_index(i, j), value);
      }
    }
  }
  reset_c();
}

void TestBuffers::set_a(std::int64_t i, std::int64_t p, double value) {
  store_from_double(a_.data(), problem_.a_type(), problem_.a_index(i, p), value);
}

void TestBuffers::set_b(std::int64_t p, std::int64_t j, double value) {
  store_from_double(b_.data(), problem_.b_type(), problem_.b_index(p, j), value);
}

void TestBuffers::reset_c() {
  c_ = c_initial_;
  if (problem_.beta() != 0.0) return;
  // One element's poison, copied to every element of C (not the padding between rows).
  std::uint8_t poison[8];
  const std::size_t size = dtype_size(problem_.c_type());
  if (problem_.c_type() == DType::s32) {
    const std::int32_t pattern = 0x5a5a5a5a;
    std::memcpy(poison, &pattern, sizeof pattern);
  } else {
    store_from_double(poison, problem_.c_type(), 0, std::numeric_limits<double>::quiet_NaN());
  }
  std::uint8_t* c = c_.data() + kGuardBytes;
  auto poison_rows = [&](std::int64_t first_row, std::int64_t end_row) {
    for (std::int64_t i = first_row; i < end_row; ++i) {
      std::uint8_t* row = c + std::size_t(problem_.c_index(i, 0)) * size;
      for (std::int64_t j = 0; j < problem_.n(); ++j) std::memcpy(row + std::size_t(j) * size, poison, size);
    }
  };
  for_chunks(problem_.m(), kElementsPerChunk / std::max<std::int64_t>(problem_.n(), 1), poison_rows);
}

std::string TestBuffers::check_guards() const {
  const std::size_t size = dtype_size(problem_.c_type());
  const std::size_t c_bytes = c_.size() - 2 * kGuardBytes;
  for (std::size_t i = 0; i < kGuardBytes; ++i) {
    if (c_[i] != kGuardByte) return "wrote " + std::to_string(kGuardBytes - i) + " bytes before C";
    if (c_[kGuardBytes + c_bytes + i] != kGuardByte) return "wrote past the end of C";
  }
  // Row padding: columns n .. ldc-1 of each row but the last.
  for (std::int64_t i = 0; i + 1 < problem_.m(); ++i) {
    for (std::int64_t j = problem_.n(); j < problem_.ldc(); ++j) {
      const std::size_t at = kGuardBytes + std::size_t(problem_.c_index(i, j)) * size;
      for (std::size_t byte = 0; byte < size; ++byte) {
        if (c_[at + byte] != kGuardByte) {
          return "wrote into the padding of row " + std::to_string(i) + " (column " + std::to_string(j) + ")";
        }
      }
    }
  }
  return {};
}

}  // namespace gemmtune
