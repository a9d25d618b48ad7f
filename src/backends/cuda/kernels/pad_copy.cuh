// Copies an operand's lines into a buffer whose lines start every `dst_pitch` bytes, for
// kernels that read through TMA, which needs pitches of 16-byte multiples (padded_operand.h).
// Compiled at run time by NVRTC. One thread a chunk of 8, 4, 2 or 1 bytes, the widest that
// divides the source's pitch, its line and its address (a bf16 line of 300 elements: 8 bytes; a
// pitch of 16 bytes needs no copy); the lines' chunks are numbered in one 32-bit index, so each
// warp reads consecutive bytes. (cudaMemcpy2DAsync did the copy before: an nn 300x4100x4096 bf16
// product with its copy of B took 68.0 us on the H200, against 42.8 with this kernel.)

template <class Chunk>
__device__ __forceinline__ void gt_copy_lines(const char* __restrict__ src, long long src_pitch, char* __restrict__ dst,
                                              long long dst_pitch, unsigned chunks_per_line, unsigned total) {
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < total; i += gridDim.x * blockDim.x) {
    const unsigned line = i / chunks_per_line, chunk = i - line * chunks_per_line;
    const Chunk* from = reinterpret_cast<const Chunk*>(src + (long long)line * src_pitch) + chunk;
    Chunk* to = reinterpret_cast<Chunk*>(dst + (long long)line * dst_pitch) + chunk;
    *to = __ldg(from);
  }
}

// C linkage names the kernel for cuModuleGetFunction.
extern "C" __global__ void gemmtune_pad_copy(const char* src, long long src_pitch, char* dst, long long dst_pitch,
                                             unsigned line_bytes, unsigned lines, int chunk_bytes) {
  const unsigned per_line = line_bytes / unsigned(chunk_bytes), total = per_line * lines;
  switch (chunk_bytes) {
    case 8: gt_copy_lines<uint2>(src, src_pitch, dst, dst_pitch, per_line, total); break;
    case 4: gt_copy_lines<unsigned>(src, src_pitch, dst, dst_pitch, per_line, total); break;
    case 2: gt_copy_lines<unsigned short>(src, src_pitch, dst, dst_pitch, per_line, total); break;
    default: gt_copy_lines<unsigned char>(src, src_pitch, dst, dst_pitch, per_line, total); break;
  }
}
