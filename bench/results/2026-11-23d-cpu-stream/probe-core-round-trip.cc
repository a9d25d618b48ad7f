#include <atomic>
#include <thread>
#include <chrono>
#include <cstdio>
#include <immintrin.h>
alignas(64) std::atomic<int> a{0};
alignas(64) std::atomic<int> b{0};
int main(){
  const int N=200000;
  std::thread t([&]{ for(int i=1;i<=N;i++){ while(a.load(std::memory_order_acquire)!=i) _mm_pause(); b.store(i,std::memory_order_release);} });
  auto t0=std::chrono::steady_clock::now();
  for(int i=1;i<=N;i++){ a.store(i,std::memory_order_release); while(b.load(std::memory_order_acquire)!=i) _mm_pause(); }
  auto t1=std::chrono::steady_clock::now();
  t.join();
  printf("round trip %.1f ns\n", std::chrono::duration<double,std::nano>(t1-t0).count()/N);
}
