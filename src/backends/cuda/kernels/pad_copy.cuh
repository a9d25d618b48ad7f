// Copies an operand's lines into a buffer whose lines start every `dst_pitch` bytes: for
// kernels that read through TMA, which needs pitches of 16-byte multiples (padded_operand.h),
// and for operands moved onto the grid a kernel was tuned at (core/operand_relocation.h).
// Compiled at run time by NVRTC.
//
// One thread copies a chunk of 8, 4, 2 or 1 bytes, the widest that divides the source's pitch,
// its line and its address. Where that is less than 8, or the source's lines lie on 16-byte
// boundaries, and the copy's do (every padded copy's), each thread writes a 16-byte chunk instead,
// from the two aligned 16-byte blocks of the source that hold it, shifted into place
// (gt_copy_shifted): on the H200, 4096 lines of 8192 bytes from 2 bytes off copied 1.8x faster
// so, and 4096 lines of 4096 bytes from 1 byte off 2.6x (bench/results/2026-12-01e-h200-cublaslt-padded.md).
// Either way the lines' chunks are numbered in one 32-bit index, so each warp reads consecutive
// bytes. (cudaMemcpy2DAsync did the copy before: an nn 300x4100x4096 bf16 product with its copy
// of B took 68.0 us on the H200, against 42.8 with this kernel.)

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

// Bytes [shift, shift + 16) of the 32 in lo:hi, as four words (little-endian: byte b of the pair
// is byte b % 4 of word b / 4). `shift` in 0..15.
__device__ __forceinline__ uint4 gt_bytes_from(uint4 lo, uint4 hi, unsigned shift) {
  const unsigned w[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
  const unsigned bits = (shift & 3u) * 8u;
  uint4 out;
  // One case a word offset, so that w stays in registers (an index not known at compile time
  // would put it in local memory).
#define GT_SHIFTED(q)                                 \
  out.x = __funnelshift_r(w[q], w[q + 1], bits);     \
  out.y = __funnelshift_r(w[q + 1], w[q + 2], bits); \
  out.z = __funnelshift_r(w[q + 2], w[q + 3], bits); \
  out.w = __funnelshift_r(w[q + 3], w[q + 4], bits);
  switch (shift >> 2) {
    case 0: GT_SHIFTED(0) break;
    case 1: GT_SHIFTED(1) break;
    case 2: GT_SHIFTED(2) break;
    default: GT_SHIFTED(3) break;
  }
#undef GT_SHIFTED
  return out;
}

// `bytes` (at most 16) from `from` to `to` (on a 16-byte boundary), in the widest pieces the
// source's address and the count allow.
__device__ __forceinline__ void gt_copy_tail(const char* from, char* to, unsigned bytes) {
  const unsigned misaligned = unsigned(reinterpret_cast<unsigned long long>(from)) | bytes;
  if ((misaligned & 7u) == 0) {
    for (unsigned b = 0; b < bytes; b += 8) *reinterpret_cast<uint2*>(to + b) = __ldg(reinterpret_cast<const uint2*>(from + b));
  } else if ((misaligned & 3u) == 0) {
    for (unsigned b = 0; b < bytes; b += 4) *reinterpret_cast<unsigned*>(to + b) = __ldg(reinterpret_cast<const unsigned*>(from + b));
  } else if ((misaligned & 1u) == 0) {
    for (unsigned b = 0; b < bytes; b += 2) {
      *reinterpret_cast<unsigned short*>(to + b) = __ldg(reinterpret_cast<const unsigned short*>(from + b));
    }
  } else {
    for (unsigned b = 0; b < bytes; ++b) to[b] = from[b];
  }
}

// Each thread one 16-byte chunk of a copy line (dst and dst_pitch on 16-byte boundaries). A
// chunk whose source starts on a 16-byte boundary is one load; another reads the two blocks
// that hold it. The first block may start before the operand, never before its allocation
// (16-byte aligned at least). A chunk whose blocks would reach past its line's end (a line's
// last one or two) goes in the widest pieces its address allows (gt_copy_tail): past the last
// line lies the end of the operand, maybe of its allocation.
__device__ __forceinline__ void gt_copy_shifted(const char* __restrict__ src, long long src_pitch,
                                                char* __restrict__ dst, long long dst_pitch, unsigned line_bytes,
                                                unsigned lines) {
  const unsigned per_line = (line_bytes + 15u) / 16u, total = per_line * lines;
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < total; i += gridDim.x * blockDim.x) {
    const unsigned line = i / per_line, chunk = i - line * per_line;
    const char* from = src + (long long)line * src_pitch + chunk * 16u;
    char* to = dst + (long long)line * dst_pitch + chunk * 16u;
    const unsigned shift = unsigned(reinterpret_cast<unsigned long long>(from) & 15u);
    const unsigned blocks_end = chunk * 16u + (shift == 0 ? 16u : 32u - shift);
    if (blocks_end > line_bytes) {
      gt_copy_tail(from, to, min(16u, line_bytes - chunk * 16u));
      continue;
    }
    const uint4* block = reinterpret_cast<const uint4*>(from - shift);
    const uint4 lo = __ldg(block);
    *reinterpret_cast<uint4*>(to) = shift == 0 ? lo : gt_bytes_from(lo, __ldg(block + 1), shift);
  }
}

// C linkage names the kernel for cuModuleGetFunction. chunk_bytes 16: gt_copy_shifted.
extern "C" __global__ void gemmtune_pad_copy(const char* src, long long src_pitch, char* dst, long long dst_pitch,
                                             unsigned line_bytes, unsigned lines, int chunk_bytes) {
  if (chunk_bytes == 16) {
    gt_copy_shifted(src, src_pitch, dst, dst_pitch, line_bytes, lines);
    return;
  }
  const unsigned per_line = line_bytes / unsigned(chunk_bytes), total = per_line * lines;
  switch (chunk_bytes) {
    case 8: gt_copy_lines<uint2>(src, src_pitch, dst, dst_pitch, per_line, total); break;
    case 4: gt_copy_lines<unsigned>(src, src_pitch, dst, dst_pitch, per_line, total); break;
    case 2: gt_copy_lines<unsigned short>(src, src_pitch, dst, dst_pitch, per_line, total); break;
    default: gt_copy_lines<unsigned char>(src, src_pitch, dst, dst_pitch, per_line, total); break;
  }
}
