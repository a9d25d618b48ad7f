#include <libxsmm.h>
#include <dnnl.h>
#include <chrono>
#include <cstdio>
#include <vector>
template <class F> double per_call_ns(F f) {
  for (int i = 0; i < 100000; ++i) f();
  double best = 1e9;
  for (int r = 0; r < 7; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    const int n = 200000;
    for (int i = 0; i < n; ++i) f();
    double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() / n;
    if (ns < best) best = ns;
  }
  return best;
}
int main() {
  libxsmm_init();
  int shapes[][3] = {{8,8,8},{16,16,16},{3,50,7},{13,7,29},{1,64,64},{32,32,32},{64,64,64}};
  for (auto& s : shapes) {
    int M = s[0], N = s[1], K = s[2];
    std::vector<float> a(M*K, 1.0f), b(K*N, 0.5f), c(M*N);
    libxsmm_blasint m = N, n = M, k = K, lda = N, ldb = K, ldc = N;
    float alpha = 1, beta = 0;
    int flags = 0, pf = 0;
    auto fn = libxsmm_smmdispatch(m, n, k, &lda, &ldb, &ldc, &alpha, &beta, &flags, &pf);
    double pre = per_call_ns([&] { fn(b.data(), a.data(), c.data()); asm volatile("" ::: "memory"); });
    double disp = per_call_ns([&] {
      auto f = libxsmm_smmdispatch(m, n, k, &lda, &ldb, &ldc, &alpha, &beta, &flags, &pf);
      f(b.data(), a.data(), c.data()); asm volatile("" ::: "memory"); });
    double disp2 = per_call_ns([&] {
      auto f = libxsmm_smmdispatch(m, n, k, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr);
      f(b.data(), a.data(), c.data()); asm volatile("" ::: "memory"); });
    double sg = per_call_ns([&] { libxsmm_sgemm("N","N",&m,&n,&k,&alpha,b.data(),&lda,a.data(),&ldb,&beta,c.data(),&ldc); asm volatile("" ::: "memory"); });
    double dn = per_call_ns([&] { dnnl_sgemm('N','N',M,N,K,1.f,a.data(),K,b.data(),N,0.f,c.data(),N); asm volatile("" ::: "memory"); });
    printf("%dx%dx%d pre %.1f ns  dispatch+call %.1f  dispatch(defaults)+call %.1f  libxsmm_sgemm %.1f  dnnl_sgemm %.1f\n", M,N,K, pre, disp, disp2, sg, dn);
  }
}
