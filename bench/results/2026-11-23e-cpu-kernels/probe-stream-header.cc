#define GEMMTUNE_ISA_NAMESPACE avx512
#define GEMMTUNE_VECTOR_BYTES 64
#define GEMMTUNE_ISA_LEVEL 2
#include "backends/cpu/cpu_stream_gemm.h"
#include "/work/main/src/backends/cpu/cpu_thread_pool.h"
#include <immintrin.h>
#include <vector>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <algorithm>
#include <dnnl.h>
using namespace gemmtune;
// Rows of A and vectors of the tile: -DPROBE_MR=1 -DPROBE_NV=8 for the 1-row runs, 2 or 4 and
// 4 for the 2- and 4-row runs; the 8-row runs used the defaults.
#ifndef PROBE_MR
#define PROBE_MR 8
#endif
#ifndef PROBE_NV
#define PROBE_NV 3
#endif
constexpr int MR=PROBE_MR, NV=PROBE_NV;
// C[8][j0:j1] = A(8xK, packed k-major ap[p*8+r]) * B
template<int NV, int KC, int PF>
static void range(const float* ap, const float* B, long ldb, long K, float* C, long ldc, float* buf, long j0, long j1){
  for(long p0=0;p0<K;p0+=KC){
    long p1=std::min(K,p0+KC); bool first=p0==0, last=p1==K;
    float* bb=buf;
    for(long j=j0;j<j1;j+=NV*16, bb+=MR*NV*16){
      __m512 s[MR][NV];
      for(int r=0;r<MR;++r) for(int v=0;v<NV;++v) s[r][v]= first? _mm512_setzero_ps(): _mm512_load_ps(bb+(r*NV+v)*16);
      const float* bp=B+p0*ldb+j; const float* a=ap+p0*MR;
      for(long p=p0;p<p1;++p){
        __m512 b[NV]; for(int v=0;v<NV;++v) b[v]=_mm512_loadu_ps(bp+v*16);
        if(PF) for(int v=0;v<NV;++v) _mm_prefetch((const char*)(bp+v*16+PF*NV*16),_MM_HINT_T0);
        for(int r=0;r<MR;++r){ __m512 av=_mm512_set1_ps(a[r]); for(int v=0;v<NV;++v) s[r][v]=_mm512_fmadd_ps(av,b[v],s[r][v]); }
        bp+=ldb; a+=MR;
      }
      if(last){ for(int r=0;r<MR;++r) for(int v=0;v<NV;++v){ if(j+v*16<j1) _mm512_storeu_ps(C+r*ldc+j+v*16,s[r][v]);} }
      else for(int r=0;r<MR;++r) for(int v=0;v<NV;++v) _mm512_store_ps(bb+(r*NV+v)*16,s[r][v]);
    }
  }
}
int main(int argc,char**argv){
  const long N=atol(argv[1]),K=atol(argv[2]); int variant=atoi(argv[3]); int threads=argc>4?atoi(argv[4]):2;
  float* B=(float*)aligned_alloc(64,N*K*4+64)+(argc>5?atoi(argv[5]):0); for(long i=0;i<N*K;++i)B[i]=float(rand()%100)/100.f;
  std::vector<float> A(MR*K), ap(MR*K); for(auto&x:A)x=float(rand()%100)/100.f;
  for(long p=0;p<K;++p) for(int r=0;r<MR;++r) ap[p*MR+r]=A[r*K+p];
  std::vector<float> C(MR*N), C2(MR*N);
  float* bufs[2]; for(int t=0;t<2;++t) bufs[t]=(float*)aligned_alloc(64, MR*(N+64)*4*2);
  // Variant v: rows of B per block KC and prefetch distance PF (tiles ahead, 0 = none), as listed.
  auto body=[&](int t,int n){ constexpr long W=NV*16; long tiles=N/W; long j0=tiles*t/n*W, j1= t==n-1? N : tiles*(t+1)/n*W;
    float* buf=bufs[t];
    switch(variant){
      case 0: range<NV,8,0>(ap.data(),B,N,K,C.data(),N,buf,j0,j1); break;  // KC=8 PF=0
      case 1: range<NV,16,0>(ap.data(),B,N,K,C.data(),N,buf,j0,j1); break;  // KC=16 PF=0
      case 2: range<NV,32,0>(ap.data(),B,N,K,C.data(),N,buf,j0,j1); break;  // KC=32 PF=0
      case 3: range<NV,64,0>(ap.data(),B,N,K,C.data(),N,buf,j0,j1); break;  // KC=64 PF=0
      case 4: range<NV,256,0>(ap.data(),B,N,K,C.data(),N,buf,j0,j1); break;  // KC=256 PF=0
      case 5: range<NV,8,2>(ap.data(),B,N,K,C.data(),N,buf,j0,j1); break;  // KC=8 PF=2
      case 6: range<NV,16,2>(ap.data(),B,N,K,C.data(),N,buf,j0,j1); break;  // KC=16 PF=2
      case 7: range<NV,64,2>(ap.data(),B,N,K,C.data(),N,buf,j0,j1); break;  // KC=64 PF=2
      case 8: range<NV,256,2>(ap.data(),B,N,K,C.data(),N,buf,j0,j1); break;  // KC=256 PF=2
      case 9: range<NV,16,4>(ap.data(),B,N,K,C.data(),N,buf,j0,j1); break;  // KC=16 PF=4
      case 10: range<NV,64,4>(ap.data(),B,N,K,C.data(),N,buf,j0,j1); break;  // KC=64 PF=4
      case 11: range<NV,256,4>(ap.data(),B,N,K,C.data(),N,buf,j0,j1); break;  // KC=256 PF=4
      case 12: range<NV,1024,4>(ap.data(),B,N,K,C.data(),N,buf,j0,j1); break;  // KC=1024 PF=4
      case 13: range<NV,4096,4>(ap.data(),B,N,K,C.data(),N,buf,j0,j1); break;  // KC=4096 PF=4
      case 100: { cpu::CpuGemmParams P; P.m=MR; P.n=N; P.k=K; P.a_rs=K; P.a_ks=1; P.b_ks=N; P.b_cs=1; P.ldc=N; P.block_k=8; P.threads=1;
        cpu::avx512::stream_range<DType::f32,DType::f32,MR,NV>(P, A.data(), B, C.data(), 0, MR, j0, j1); break; }
      case 14: range<NV,256,8>(ap.data(),B,N,K,C.data(),N,buf,j0,j1); break;  // KC=256 PF=8
    }};
  auto now=[]{return std::chrono::steady_clock::now();};
  std::vector<double> ta,tb;
  for(int r=0;r<60;++r){ auto t0=now(); cpu::parallel_for_threads(threads,body); auto t1=now(); if(!getenv("NO_DNNL")) dnnl_sgemm('N','N',MR,N,K,1.f,A.data(),K,B,N,0.f,C2.data(),N); auto t2=now();
    ta.push_back(std::chrono::duration<double,std::micro>(t1-t0).count()); tb.push_back(std::chrono::duration<double,std::micro>(t2-t1).count()); }
  std::sort(ta.begin(),ta.end()); std::sort(tb.begin(),tb.end());
  double err=0; for(long j=0;j<MR*N;++j) err=std::max(err,(double)std::abs(C[j]-C2[j])/ (1+std::abs(C2[j])));
  printf("N=%ld K=%ld variant %d: ours %.0f us, dnnl_sgemm %.0f us, ratio %.2f relerr %g\n",N,K,variant,ta[30],tb[30],tb[30]/ta[30],err);
}
