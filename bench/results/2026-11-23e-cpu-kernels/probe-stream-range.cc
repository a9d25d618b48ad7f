#define GEMMTUNE_ISA_NAMESPACE avx512
#define GEMMTUNE_VECTOR_BYTES 64
#define GEMMTUNE_ISA_LEVEL 2
#include "backends/cpu/cpu_stream_gemm.h"
void standalone_stream(long M, long N, long K, const float* a, const float* b, float* c) {
  using namespace gemmtune;
  cpu::CpuGemmParams P; P.m=M; P.n=N; P.k=K; P.a_rs=K; P.a_ks=1; P.b_ks=N; P.b_cs=1; P.ldc=N; P.block_k=8; P.threads=1;
  cpu::avx512::stream_range<DType::f32,DType::f32,1,8>(P, a, b, c, 0, M, 0, N);
}
