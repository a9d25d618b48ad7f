#include "../../work/main/src/backends/cpu/cpu_kernels.h"
#include "../../work/main/src/backends/cpu/cpu_thread_pool.h"
#include <immintrin.h>
#include <vector>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <thread>
#include <atomic>
#include <cstdint>
using namespace gemmtune;
static float dot8(const float* w, const float* x, size_t k, size_t rows){
  float s=0;
  for(size_t r=0;r<rows;r+=8){
    __m512 acc[8]; for(int q=0;q<8;++q)acc[q]=_mm512_setzero_ps();
    for(size_t p=0;p<k;p+=16){ __m512 xv=_mm512_loadu_ps(x+p);
      for(int q=0;q<8;++q){ const float* wp=w+(r+q)*k+p; acc[q]=_mm512_fmadd_ps(xv,_mm512_loadu_ps(wp),acc[q]);}}
    for(int q=0;q<8;++q)s+=_mm512_reduce_add_ps(acc[q]);
  }
  return s;
}
int main(int argc, char** argv){
  const int N=4096,K=4096; int mc=atoi(argv[1]);
  int off=argc>2?atoi(argv[2]):0; std::vector<std::uint8_t> wv; float* w; if(off<0){ wv.resize(size_t(N)*K*4+1); w=(float*)wv.data(); printf("vector w %% 64 = %d\n", int(std::uintptr_t(w)%64)); } else w=(float*)((char*)aligned_alloc(4096,size_t(N)*K*4+4096)+off); for(size_t i=0;i<size_t(N)*K;++i)w[i]=1e-6f*(i%7);
  std::vector<float> x(K,1.0f), c(N);
  cpu::CpuGemmFn fn=cpu::find_cpu_kernel(cpu::kIsaAvx512,cpu::kAlgoDirectDot,DType::f32,DType::f32,1,mc);
  cpu::CpuGemmParams P; P.m=1;P.n=N;P.k=K;P.a_rs=K;P.a_ks=1;P.b_ks=1;P.b_cs=K;P.ldc=N;P.threads=2;
  std::atomic<int> gen{0},fin{0}; std::atomic<bool> stop{false}; volatile float sink=0;
  auto body=[&](int t,int n){ float s=dot8(w+size_t(t)*(N/n)*K,x.data(),K,N/n); static volatile float sinks[2]; sinks[t]=s; };
  std::vector<double> ta,tb; int nb=0;
  auto now=[]{return std::chrono::steady_clock::now();};
  auto us=[](auto a,auto b){return std::chrono::duration<double,std::micro>(b-a).count();};
  for(int rep=0;rep<200;++rep){
    auto t0=now();
    if(rep%2) fn(P,x.data(),w,c.data()); else cpu::parallel_for_threads(2, body);
    auto t1=now();
    if(rep%2) cpu::parallel_for_threads(2, body); else fn(P,x.data(),w,c.data());
    auto t2=now();
    if(rep%2){ ta.push_back(us(t0,t1)); tb.push_back(us(t1,t2)); } else { tb.push_back(us(t0,t1)); ta.push_back(us(t1,t2)); }
  }
  if(argc>3){ int sl=atoi(argv[3]); std::vector<double> tc;
    for(int rep=0;rep<60;++rep){ std::this_thread::sleep_for(std::chrono::microseconds(sl)); fn(P,x.data(),w,c.data());
      auto t0=now(); for(int i=0;i<3;++i) fn(P,x.data(),w,c.data()); auto t1=now(); tc.push_back(us(t0,t1)/3);}
    std::sort(tc.begin(),tc.end()); printf("after %d us sleeps: ours median %.0f us\n", sl, tc[30]);
    cpu::CpuGemmFn fn4=cpu::find_cpu_kernel(cpu::kIsaAvx512,cpu::kAlgoDirectDot,DType::f32,DType::f32,1,4);
    std::vector<double> t8,t4;
    for(int rep=0;rep<60;++rep){ for(int which=0;which<2;++which){ auto f= which?fn4:fn; std::this_thread::sleep_for(std::chrono::microseconds(sl)); f(P,x.data(),w,c.data());
      auto t0=now(); for(int i=0;i<3;++i) f(P,x.data(),w,c.data()); auto t1=now(); (which?t4:t8).push_back(us(t0,t1)/3);}}
    std::sort(t8.begin(),t8.end()); std::sort(t4.begin(),t4.end()); printf("interleaved mn=8 %.0f  mn=4 %.0f\n", t8[30], t4[30]); }
  std::sort(ta.begin(),ta.end());std::sort(tb.begin(),tb.end());
  printf("mn=%d ours median %.0f us  probe dot8 median %.0f us  ratio %.3f\n",mc,ta[100],tb[100],ta[100]/tb[100]);
}
