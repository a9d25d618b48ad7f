// The bounds of a bf16 or s8 AMX product on this CPU, per thread: how many multiply-adds a
// second the tile units give
//   - alone: four independent C tiles, each TDP reading two tiles already in registers;
//   - fed as gemmtune's amx kernel feeds them: a 2 × 2 block of C tiles, one R and one P tile
//     loaded for each pair of products (four loads to four products), with R and P read from a
//     buffer of `kib` KiB (R rows 64 bytes apart within a tile of 1 KB, as a packed panel or a
//     copy of R; the block walks through the buffer and starts again), so the loads come from
//     L1 (a few KiB), L2 (hundreds) or beyond.
// A product's time can be no lower than its multiply-adds at the first rate, and no lower than
// at the second where its tiles come from that level of the caches.
//
//   amx_peak [threads] [kib] [repeats] [bf16|s8] [r_stride] [block] [r_offset]   defaults 2 32 20 bf16 0 0 0
//
// With r_stride (bytes), a third rate: R read in place from 32 rows that far apart, as the kernel
// reads A (or W with swap) whose rows run along k: k = 512 bf16 is 1024 bytes. With block, C
// is stored and zeroed every `block` steps, as the kernel ends a block of one slice of k. With
// r_offset, R starts that many bytes past a 64-byte line, as a large std::vector's data does
// (16 bytes past, under glibc): each of a tile's rows then spans two lines.
//
// Prints each rate as multiply-adds a cycle a thread, at the clock a chain of dependent
// multiplies reads (the tile units may run at another), and as TFLOP/s (TOP/s) a thread.
#include <immintrin.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "passes.h"

namespace {

constexpr long kSteps = 1 << 20;  // products a pass, per chain

// Palette 1, tiles 0-7 of 16 rows of 64 bytes: byte 0 the palette, bytes 16-31 each tile's
// bytes a row (16 bits each), bytes 48-63 its rows.
__attribute__((target("amx-tile"))) void configure() {
  alignas(64) std::uint8_t config[64] = {1};
  for (int t = 0; t < 8; ++t) config[16 + 2 * t] = 64, config[48 + t] = 16;
  // Not _tile_loadconfig: GCC 12's names only 8 bytes as read, and at -O2 the rows and widths
  // were dropped as dead stores (ldtilecfg then faults).
  asm volatile("ldtilecfg %0" ::"m"(config));
}

// Four products a step on C tiles 0-3 from tiles 4-7, which never change: the units alone.
template <bool kS8>
__attribute__((target("amx-tile,amx-bf16,amx-int8"))) void units_alone(long steps) {
  _tile_zero(0); _tile_zero(1); _tile_zero(2); _tile_zero(3);
  _tile_zero(4); _tile_zero(5); _tile_zero(6); _tile_zero(7);
  for (long s = 0; s < steps; ++s) {
    if constexpr (kS8) {
      _tile_dpbssd(0, 4, 6); _tile_dpbssd(1, 4, 7); _tile_dpbssd(2, 5, 6); _tile_dpbssd(3, 5, 7);
    } else {
      _tile_dpbf16ps(0, 4, 6); _tile_dpbf16ps(1, 4, 7); _tile_dpbf16ps(2, 5, 6); _tile_dpbf16ps(3, 5, 7);
    }
  }
  alignas(64) static thread_local std::uint8_t sink[1024];
  _tile_stored(0, sink, 64);
}

// The amx kernel's inner step: P tiles 6-7 from p and p + 1 KB (rows 64 bytes apart), R tiles
// 4-5 from r0 and r1 (rows r_stride bytes apart), four products on C tiles 0-3. Inline
// assembly with a memory clobber, as in the kernel, so the loads stay in the loop.
template <bool kS8>
__attribute__((target("amx-tile,amx-bf16,amx-int8"), always_inline)) inline void step(const std::uint8_t* p,
                                                                                      const std::uint8_t* r0,
                                                                                      const std::uint8_t* r1,
                                                                                      long r_stride) {
  const long stride = 64;
  asm volatile("tileloadd (%0,%1,1), %%tmm6" ::"r"(p), "r"(stride) : "memory");
  asm volatile("tileloadd (%0,%1,1), %%tmm7" ::"r"(p + 1024), "r"(stride) : "memory");
  asm volatile("tileloadd (%0,%1,1), %%tmm4" ::"r"(r0), "r"(r_stride) : "memory");
  if constexpr (kS8) {
    _tile_dpbssd(0, 4, 6); _tile_dpbssd(1, 4, 7);
  } else {
    _tile_dpbf16ps(0, 4, 6); _tile_dpbf16ps(1, 4, 7);
  }
  asm volatile("tileloadd (%0,%1,1), %%tmm5" ::"r"(r1), "r"(r_stride) : "memory");
  if constexpr (kS8) {
    _tile_dpbssd(2, 5, 6); _tile_dpbssd(3, 5, 7);
  } else {
    _tile_dpbf16ps(2, 5, 6); _tile_dpbf16ps(3, 5, 7);
  }
}

// The step with all four tiles from `buffer` (4 KB a step, walking it and wrapping).
template <bool kS8>
__attribute__((target("amx-tile,amx-bf16,amx-int8"))) void fed(long steps, const std::uint8_t* buffer, long bytes) {
  _tile_zero(0); _tile_zero(1); _tile_zero(2); _tile_zero(3);
  long offset = 0;
  for (long s = 0; s < steps; ++s) {
    const std::uint8_t* p = buffer + offset;
    step<kS8>(p, p + 2048, p + 3072, 64);
    offset += 4096;
    if (offset + 4096 > bytes) offset = 0;
  }
  alignas(64) static thread_local std::uint8_t sink[1024];
  _tile_stored(0, sink, 64);
}

// As `fed`, but R read in place as the kernel reads a matrix whose rows run along k: tiles 4-5
// are rows 0-15 and 16-31 of `r`, rows `r_stride` bytes apart, 64 bytes further along them a
// step (back to the start at the rows' end); P walks `buffer` 2 KB a step.
// With `block` > 0, C starts from zero and is stored every `block` steps, as the kernel's
// blocks of one slice of k do (16 steps for k = 512 bf16), R starting again at the rows' start.
template <bool kS8>
__attribute__((target("amx-tile,amx-bf16,amx-int8"))) void fed_r_in_place(long steps, const std::uint8_t* buffer,
                                                                           long bytes, const std::uint8_t* r,
                                                                           long r_stride, long block) {
  alignas(64) static thread_local std::uint8_t c[4096];
  _tile_zero(0); _tile_zero(1); _tile_zero(2); _tile_zero(3);
  long offset = 0, along = 0, left = block;  // steps left in the block (a countdown: no division)
  for (long s = 0; s < steps; ++s) {
    if (block > 0 && left-- == 0) {
      left = block - 1;
      asm volatile("tilestored %%tmm0, (%0,%1,1)" ::"r"(c), "r"(128L) : "memory");
      asm volatile("tilestored %%tmm1, (%0,%1,1)" ::"r"(c + 64), "r"(128L) : "memory");
      asm volatile("tilestored %%tmm2, (%0,%1,1)" ::"r"(c + 2048), "r"(128L) : "memory");
      asm volatile("tilestored %%tmm3, (%0,%1,1)" ::"r"(c + 2112), "r"(128L) : "memory");
      _tile_zero(0); _tile_zero(1); _tile_zero(2); _tile_zero(3);
      along = 0;
    }
    step<kS8>(buffer + offset, r + along, r + along + 16 * r_stride, r_stride);
    offset += 2048;
    if (offset + 2048 > bytes) offset = 0;
    along += 64;
    if (along == r_stride) along = 0;
  }
  alignas(64) static thread_local std::uint8_t sink[1024];
  _tile_stored(0, sink, 64);
}

// The clock, from a chain of dependent 64-bit multiplies (3 cycles each on Intel and AMD cores
// since long; a chain of adds of an immediate is not a clock on Golden Cove and later cores,
// which fold them): cycles a second.
double cycles_per_second() {
  const long iterations = 1L << 26;
  const std::vector<double> seconds = timed_passes(1, 5, [&](int) {
    long n = iterations, x = 3;
    asm volatile(
        "1:\n\t"
        "imul %1, %1\n\t"
        "imul %1, %1\n\t"
        "imul %1, %1\n\t"
        "imul %1, %1\n\t"
        "sub $4, %0\n\t"
        "jnz 1b"
        : "+r"(n), "+r"(x)
        :
        : "cc");
  });
  return 3.0 * double(iterations) / seconds.front();
}

}  // namespace

int main(int argc, char** argv) {
  const int threads = argc > 1 ? std::atoi(argv[1]) : 2;
  const long kib = argc > 2 ? std::atol(argv[2]) : 32;
  const int repeats = argc > 3 ? std::atoi(argv[3]) : 20;
  const bool s8 = argc > 4 && std::strcmp(argv[4], "s8") == 0;
  const long r_stride = argc > 5 ? std::atol(argv[5]) : 0;
  const long block = argc > 6 ? std::atol(argv[6]) : 0;
  const long r_offset = argc > 7 ? std::atol(argv[7]) : 0;
  if (threads <= 0 || kib < 4 || repeats <= 0 || r_stride < 0 || r_stride % 64 != 0 || r_offset < 0 || r_offset >= 64) {
    std::fprintf(stderr, "usage: amx_peak [threads > 0] [kib >= 4] [repeats > 0] [bf16|s8] [r_stride: bytes, a multiple of 64] [block] [r_offset < 64]\n");
    return 2;
  }
  if (!__builtin_cpu_supports("amx-tile") || !__builtin_cpu_supports("amx-bf16") || !__builtin_cpu_supports("amx-int8")) {
    std::fprintf(stderr, "amx_peak: this CPU has no AMX (amx-tile, amx-bf16, amx-int8)\n");
    return 1;
  }
  // Linux grants a process the tile state on request (ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA).
  if (syscall(SYS_arch_prctl, 0x1023, 18) != 0) {
    std::fprintf(stderr, "amx_peak: Linux did not grant the AMX tile state\n");
    return 1;
  }
  const double hz = cycles_per_second();
  const long bytes = kib * 1024 / 4096 * 4096;
  std::vector<std::vector<std::uint8_t>> buffers(threads, std::vector<std::uint8_t>(std::size_t(bytes + 64)));
  for (auto& b : buffers) std::memset(b.data(), 1, b.size());
  const double macs = double(kSteps) * 4 * 16 * 16 * (s8 ? 64 : 32);  // per thread and pass
  auto report = [&](const char* what, const std::vector<double>& seconds) {
    const double best = macs / seconds.front(), median = macs / seconds[seconds.size() / 2];
    std::printf("%-34s best %6.1f MAC/cycle (%.2f T%s/s), median %6.1f MAC/cycle a thread\n", what, best / hz,
                2 * best / 1e12, s8 ? "OP" : "FLOP", median / hz);
  };
  std::printf("%s, %d threads, %ld KiB each, clock %.2f GHz (dependent multiplies), %d passes\n", s8 ? "s8" : "bf16",
              threads, bytes / 1024, hz / 1e9, repeats);
  auto aligned = [&](int t) {
    return reinterpret_cast<const std::uint8_t*>((reinterpret_cast<std::uintptr_t>(buffers[t].data()) + 63) & ~std::uintptr_t(63));
  };
  report("units alone (4 products, no loads)", timed_passes(threads, repeats, [&](int) {
           configure();
           s8 ? units_alone<true>(kSteps) : units_alone<false>(kSteps);
         }));
  report("2x2 block, 4 loads to 4 products", timed_passes(threads, repeats, [&](int t) {
           configure();
           s8 ? fed<true>(kSteps, aligned(t), bytes) : fed<false>(kSteps, aligned(t), bytes);
         }));
  if (r_stride > 0) {
    std::vector<std::vector<std::uint8_t>> rs(threads, std::vector<std::uint8_t>(std::size_t(32 * r_stride + 128), 1));
    auto r_of = [&](int t) {
      return reinterpret_cast<const std::uint8_t*>((reinterpret_cast<std::uintptr_t>(rs[t].data()) + 63) & ~std::uintptr_t(63)) +
             r_offset;
    };
    char what[64];
    std::snprintf(what, sizeof(what), "2x2, R in place, %ld B apart%s%s", r_stride, block > 0 ? ", blocks" : "",
                  r_offset > 0 ? ", off line" : "");
    report(what, timed_passes(threads, repeats, [&](int t) {
             configure();
             s8 ? fed_r_in_place<true>(kSteps, aligned(t), bytes, r_of(t), r_stride, block)
                : fed_r_in_place<false>(kSteps, aligned(t), bytes, r_of(t), r_stride, block);
           }));
  }
  return 0;
}
