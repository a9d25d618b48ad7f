// Runs gemm_mma.cuh and gemm_skinny.cuh on the host: one std::thread per CUDA thread, std::barrier for
// __syncthreads (a warp's barrier for __syncwarp, one per id for bar.sync), and mma.sync modelled lane by lane on the fragment layouts of the PTX ISA
// ("Matrix fragments for mma.m16n8k16 / m16n8k8 / m16n8k32"). It checks the template's tiling,
// bounds, layouts, swizzle and split-k without a GPU; it says nothing of speed, and it trusts
// its own reading of the PTX layouts (the launch tests on a GPU check that).
#pragma once

#include <barrier>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(threads)
#define GT_HOST_EMULATION 1

struct GtEmuDim3 {
  unsigned x = 0, y = 0, z = 0;
};
inline thread_local GtEmuDim3 threadIdx, blockIdx, blockDim, gridDim;

inline float __uint_as_float(unsigned bits) { return std::bit_cast<float>(bits); }

// Byte i of the result is byte (selector nibble i) of the eight bytes y:x.
inline unsigned __byte_perm(unsigned x, unsigned y, unsigned selector) {
  const unsigned long long bytes = (static_cast<unsigned long long>(y) << 32) | x;
  unsigned out = 0;
  for (int i = 0; i < 4; ++i) out |= unsigned((bytes >> (8 * ((selector >> (4 * i)) & 7))) & 0xff) << (8 * i);
  return out;
}
inline int atomicAdd(int* address, int value) { return __atomic_fetch_add(address, value, __ATOMIC_SEQ_CST); }
inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }

namespace gt_emu {

// What one emulated warp shares: the lanes' fragments for the mma in progress.
struct Warp {
  std::barrier<> barrier{32};
  unsigned a[32][4];
  unsigned b[32][2];
};

// bar.sync's named barriers 1..15 of one block, each made for the thread count its first user
// names (the kernel passes the same count every time).
struct NamedBarriers {
  std::mutex mutex;
  std::unique_ptr<std::barrier<>> barriers[16];
};

struct Block {
  std::barrier<>* barrier = nullptr;
  Warp* warps = nullptr;
  unsigned* shared = nullptr;
  NamedBarriers* named = nullptr;
};
inline thread_local Block block;

inline unsigned* shared_words() { return block.shared; }

inline void named_barrier(int id, int threads) {
  std::barrier<>* barrier = nullptr;
  {
    std::lock_guard<std::mutex> lock(block.named->mutex);
    auto& slot = block.named->barriers[id];
    if (!slot) slot = std::make_unique<std::barrier<>>(threads);
    barrier = slot.get();
  }
  barrier->arrive_and_wait();
}

inline unsigned tf32_bits(float v) {
  unsigned bits = std::bit_cast<unsigned>(v);
  if (std::isfinite(v)) bits = (bits + 0x1000u) & 0xffffe000u;  // nearest, ties away from zero
  return bits;
}

inline unsigned short bf16_bits(float v) {
  const unsigned bits = std::bit_cast<unsigned>(v);
  return (unsigned short)((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);  // nearest even
}

inline unsigned short f16_bits(float v) { return std::bit_cast<unsigned short>(static_cast<_Float16>(v)); }
inline float f16_value(unsigned short bits) { return static_cast<float>(std::bit_cast<_Float16>(bits)); }

// One element of a 16-bit fragment word.
template <int IN>
float half_value(unsigned word, int half) {
  const unsigned short bits = (unsigned short)(word >> (16 * half));
  return IN == 0 ? f16_value(bits) : __uint_as_float(unsigned(bits) << 16);
}

// A(r, c) and B(k, n) of the warp's mma, read from the lanes' registers.
template <int IN>
double a_value(const Warp& w, int r, int c) {
  if constexpr (IN == 2) return std::bit_cast<float>(w.a[(r % 8) * 4 + c % 4][r / 8 + 2 * (c / 4)]);
  if constexpr (IN == 3) {
    const unsigned word = w.a[(r % 8) * 4 + (c % 16) / 4][r / 8 + 2 * (c / 16)];
    return (signed char)(word >> (8 * (c % 4)));
  }
  return half_value<IN>(w.a[(r % 8) * 4 + (c % 8) / 2][r / 8 + 2 * (c / 8)], c % 2);
}

template <int IN>
double b_value(const Warp& w, int k, int n) {
  if constexpr (IN == 2) return std::bit_cast<float>(w.b[n * 4 + k % 4][k / 4]);
  if constexpr (IN == 3) return (signed char)(w.b[n * 4 + (k % 16) / 4][k / 16] >> (8 * (k % 4)));
  return half_value<IN>(w.b[n * 4 + (k % 8) / 2][k / 8], k % 2);
}

// mma.sync: every lane deposits its fragments, then computes its own four accumulators
// (c0, c1 at row groupID, cols 2·tig and 2·tig+1; c2, c3 at row groupID + 8).
template <int IN, class Acc>
void mma(Acc (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2]) {
  const int lane = int(threadIdx.x & 31);
  Warp& w = block.warps[threadIdx.x / 32];
  std::memcpy(w.a[lane], a, sizeof a);
  std::memcpy(w.b[lane], b, sizeof b);
  w.barrier.arrive_and_wait();
  const int k_extent = IN == 2 ? 8 : IN == 3 ? 32 : 16;
  for (int i = 0; i < 4; ++i) {
    const int row = lane / 4 + 8 * (i / 2);
    const int col = 2 * (lane % 4) + i % 2;
    double sum = 0;
    for (int k = 0; k < k_extent; ++k) sum += a_value<IN>(w, row, k) * b_value<IN>(w, k, col);
    d[i] += Acc(sum);
  }
  w.barrier.arrive_and_wait();  // nobody overwrites the fragments before every lane has read them
}

// Runs kernel(args...) over a grid of blocks of `threads` threads, one block after another.
template <class Kernel, class... Args>
void launch_grid(Kernel kernel, GtEmuDim3 grid, unsigned threads, std::size_t shared_bytes, Args... args) {
  const unsigned blocks = grid.x * grid.y * grid.z;
  for (unsigned index = 0; index < blocks; ++index) {
    const GtEmuDim3 id{index % grid.x, index / grid.x % grid.y, index / (grid.x * grid.y)};
    std::vector<unsigned> shared(shared_bytes / 4 + 1, 0xdeadbeefu);  // garbage, as on a GPU
    std::barrier<> barrier(threads);
    std::unique_ptr<Warp[]> warps(new Warp[(threads + 31) / 32]);
    NamedBarriers named;
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t) {
      pool.emplace_back([&, t] {
        threadIdx = {t, 0, 0};
        blockIdx = id;
        blockDim = {threads, 1, 1};
        gridDim = grid;
        block = {&barrier, &warps[0], shared.data(), &named};
        kernel(args...);
      });
    }
    for (std::thread& thread : pool) thread.join();
  }
}

// A grid_x × 1 × grid_z grid.
template <class Kernel, class... Args>
void launch(Kernel kernel, unsigned grid_x, unsigned grid_z, unsigned threads, std::size_t shared_bytes,
            Args... args) {
  launch_grid(kernel, GtEmuDim3{grid_x, 1, grid_z}, threads, shared_bytes, args...);
}

}  // namespace gt_emu

inline void __syncthreads() { gt_emu::block.barrier->arrive_and_wait(); }
// A warp's lanes meet (the warp's own barrier, which its mma steps also use in the same order).
inline void __syncwarp() { gt_emu::block.warps[threadIdx.x / 32].barrier.arrive_and_wait(); }
