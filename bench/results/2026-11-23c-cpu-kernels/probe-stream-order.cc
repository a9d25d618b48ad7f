#include "../../work/main/src/backends/cpu/cpu_thread_pool.h"
#include <immintrin.h>
#include <vector>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <algorithm>
#include <dnnl.h>
using namespace gemmtune;
// y[j0:j1] = sum_p x[p] * B[p][j0:j1]; B row-major ldb; 8 rows of B per pass, y in L1
template<int U>
static void axpy_range(const float* x, const float* B, long ldb, long K, float* y, long j0, long j1){
  for(long p=0;p<K;p+=U){
    __m512 xs[U]; for(int u=0;u<U;++u) xs[u]=_mm512_set1_ps(x[p+u]);
    for(long j=j0;j<j1;j+=16){
      __m512 acc = p==0? _mm512_setzero_ps() : _mm512_loadu_ps(y+j);
      for(int u=0;u<U;++u) acc=_mm512_fmadd_ps(xs[u],_mm512_loadu_ps(B+(p+u)*ldb+j),acc);
      _mm512_storeu_ps(y+j,acc);
    }
  }
}
int main(int argc,char**argv){
  const long N=4096,K=4096; int U=atoi(argv[1]);
  std::vector<std::uint8_t> bv(N*K*4+128); float* B=(float*)(bv.data()+ (argc>2? (64-std::uintptr_t(bv.data())%64)%64 : 0)); bv.resize(N*K*4+64); for(long i=0;i<N*K;++i)B[i]=float(rand()%100)/100.f;
  std::vector<float> x(K,0.5f), y(N), y2(N);
  auto body=[&](int t,int n){ long j0=N/n*t, j1=N/n*(t+1); if(U==8) axpy_range<8>(x.data(),B,N,K,y.data(),j0,j1); else if(U==4) axpy_range<4>(x.data(),B,N,K,y.data(),j0,j1); else axpy_range<16>(x.data(),B,N,K,y.data(),j0,j1);};
  auto now=[]{return std::chrono::steady_clock::now();};
  std::vector<double> ta,tb;
  for(int r=0;r<100;++r){ auto t0=now(); cpu::parallel_for_threads(2,body); auto t1=now(); dnnl_sgemm('N','N',1,N,K,1.f,x.data(),K,B,N,0.f,y2.data(),N); auto t2=now();
    ta.push_back(std::chrono::duration<double,std::micro>(t1-t0).count()); tb.push_back(std::chrono::duration<double,std::micro>(t2-t1).count()); }
  std::sort(ta.begin(),ta.end()); std::sort(tb.begin(),tb.end());
  double err=0; for(long j=0;j<N;++j) err=std::max(err,(double)std::abs(y[j]-y2[j]));
  printf("U=%d axpy median %.0f us, dnnl_sgemm %.0f us, ratio %.2f maxerr %g\n",U,ta[50],tb[50],tb[50]/ta[50],err);
}
