// The read floor's kernel: each thread streams 16-byte loads (ld.global.nc, no L1 allocation)
// over a contiguous share of the buffer and folds them into one word, written only if it
// matches a value it never does (so the loads cannot be dropped). With pdl 1 it lets the next
// grid launch at once and waits for the previous one only before its (never taken) store, as a
// kernel that reads its weights early does (GEMMTUNE_PDL=weights); with pdl 2 it waits before
// its first load, as gemmtune's kernels do by default (GEMMTUNE_PDL=on).
// Shared by bench/probes/memory/read_floor.cu and bench/probes/skinny/bench.cu.
#pragma once

__global__ void __launch_bounds__(256) read_once(const uint4* data, long long vectors, unsigned* sink, int pdl) {
  if (pdl) asm volatile("griddepcontrol.launch_dependents;");
  if (pdl == 2) asm volatile("griddepcontrol.wait;" ::: "memory");
  const long long threads = (long long)gridDim.x * blockDim.x;
  const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  // Each warp reads a contiguous run: 32 lanes x 16 bytes per step, 8 steps in flight.
  unsigned fold = 0;
  for (long long i = t; i < vectors; i += threads * 8) {
    uint4 v[8];
#pragma unroll
    for (int u = 0; u < 8; ++u) {
      const long long j = i + u * threads;
      if (j < vectors) {
        asm("ld.global.nc.L1::no_allocate.v4.u32 {%0,%1,%2,%3}, [%4];"
            : "=r"(v[u].x), "=r"(v[u].y), "=r"(v[u].z), "=r"(v[u].w)
            : "l"(data + j));
      } else {
        v[u] = make_uint4(0, 0, 0, 0);
      }
    }
#pragma unroll
    for (int u = 0; u < 8; ++u) fold ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
  }
  if (pdl == 1) asm volatile("griddepcontrol.wait;" ::: "memory");
  if (fold == 0x9e3779b9u) sink[0] = fold;
}
