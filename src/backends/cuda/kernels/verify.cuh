// The GPU harness's reference and checker, compiled at run time by NVRTC (and on the host by
// tests/cuda/verify_emulation_test.cc): a plain loop, one thread per element of C, so that it
// is obviously right; every element of C is then checked on the device against it, as the host
// verifier (src/core/verify.cc) checks on the CPU.
//
// Macros: GT_IN (0 f16, 1 bf16, 2 f32, 3 s8), GT_OUT (0 f32, 1 f16, 2 bf16, 3 s32),
// GT_A_ROW (A row-major), GT_B_ROW (B row-major).

// C linkage names the kernels for cuModuleGetFunction; the host emulation, which includes this
// file once per instance in namespaces of its own, defines it empty.
#ifndef GT_KERNEL_LINKAGE
#define GT_KERNEL_LINKAGE extern "C"
#endif

#if GT_IN == 3
typedef signed char gt_in_t;
#elif GT_IN == 2
typedef float gt_in_t;
#else
typedef unsigned short gt_in_t;
#endif
#if GT_OUT == 0
typedef float gt_out_t;
#elif GT_OUT == 3
typedef int gt_out_t;
#else
typedef unsigned short gt_out_t;
#endif

__device__ __forceinline__ double gt_half_to_double(unsigned short h) {
  // IEEE binary16 by its fields, exact in double (also subnormals, infinities and NaN).
  const int exponent = (h >> 10) & 31, mantissa = h & 1023;
  double v;
  if (exponent == 31) {
    v = mantissa ? __longlong_as_double(0x7ff8000000000000LL) : __longlong_as_double(0x7ff0000000000000LL);
  } else if (exponent == 0) {
    v = mantissa * (1.0 / 16777216.0);  // 2^-24
  } else {
    v = (1024 + mantissa) * (double)(1LL << exponent) / 33554432.0;  // 2^(exponent - 25)
  }
  return (h & 0x8000) ? -v : v;
}

__device__ __forceinline__ double gt_in_value(const gt_in_t* p, long long index) {
#if GT_IN == 0
  return gt_half_to_double(p[index]);
#elif GT_IN == 1
  return (double)__uint_as_float(((unsigned)p[index]) << 16);
#else
  return (double)p[index];
#endif
}

__device__ __forceinline__ double gt_out_value(const gt_out_t* p, long long index) {
#if GT_OUT == 1
  return gt_half_to_double(p[index]);
#elif GT_OUT == 2
  return (double)__uint_as_float(((unsigned)p[index]) << 16);
#else
  return (double)p[index];
#endif
}

// GT_REF_VEC consecutive k of an operand (16 bytes of them): from one load where the operand
// runs along k and they are aligned (`vector`), else one at a time `step` apart.
#define GT_REF_VEC ((int)(16 / sizeof(gt_in_t)))
struct alignas(16) gt_in_vec {
  gt_in_t v[GT_REF_VEC];
};
__device__ __forceinline__ void gt_in_values(const gt_in_t* p, long long index, long long step, bool vector,
                                             double (&out)[GT_REF_VEC]) {
  if (vector) {
    const gt_in_vec q = *reinterpret_cast<const gt_in_vec*>(p + index);
    for (int t = 0; t < GT_REF_VEC; ++t) out[t] = gt_in_value(q.v, t);
  } else {
    for (int t = 0; t < GT_REF_VEC; ++t) out[t] = gt_in_value(p, index + t * step);
  }
}

// products[i·n + j] = Σ_p A(i, p)·B(p, j) in double, p in order; thread (i, 0) also writes
// ‖row i of A‖ and thread (0, j) ‖column j of B‖.
GT_KERNEL_LINKAGE __global__ void gemmtune_reference(const gt_in_t* a, const gt_in_t* b, double* products, double* a_norms,
                                              double* b_norms, long long m, long long n, long long k, long long lda,
                                              long long ldb) {
  const long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const long long i = (long long)blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= m || j >= n) return;
  // A(i, p) at a_at + p·a_step, B(p, j) at b_at + p·b_step.
  const long long a_at = GT_A_ROW ? i * lda : i, a_step = GT_A_ROW ? 1 : lda;
  const long long b_at = GT_B_ROW ? j : j * ldb, b_step = GT_B_ROW ? ldb : 1;
  // Where an operand runs along k, its threads in a warp read 16 different rows of it: with one
  // 2-byte load a step, the loads' many lines made this kernel 1.1 s of an 8192³ tuning
  // (2026-11-27-h100-compile-time.md). 16 bytes of k a load; p still runs in order, so the
  // sums are the same doubles.
  const bool a_vector = a_step == 1 && a_at % GT_REF_VEC == 0 && (unsigned long long)a % 16 == 0;
  const bool b_vector = b_step == 1 && b_at % GT_REF_VEC == 0 && (unsigned long long)b % 16 == 0;
  double sum = 0, a_squares = 0, b_squares = 0;
  long long p = 0;
  for (; p + GT_REF_VEC <= k; p += GT_REF_VEC) {
    double x[GT_REF_VEC], y[GT_REF_VEC];
    gt_in_values(a, a_at + p * a_step, a_step, a_vector, x);
    gt_in_values(b, b_at + p * b_step, b_step, b_vector, y);
    for (int t = 0; t < GT_REF_VEC; ++t) {
      sum += x[t] * y[t];
      a_squares += x[t] * x[t];
      b_squares += y[t] * y[t];
    }
  }
  for (; p < k; ++p) {
    const double x = gt_in_value(a, a_at + p * a_step);
    const double y = gt_in_value(b, b_at + p * b_step);
    sum += x * y;
    a_squares += x * x;
    b_squares += y * y;
  }
  products[i * n + j] = sum;
  if (j == 0) a_norms[i] = sqrt(a_squares);
  if (i == 0) b_norms[j] = sqrt(b_squares);
}

// What the check found: how many elements are wrong, the first of them (row-major order), and
// the largest |error| / bound over C (a float's bits, so that atomicMax orders them).
struct gt_verify_result {
  unsigned long long wrong;
  unsigned long long first_wrong;  // i·n + j; ~0 when none
  unsigned largest_ratio_bits;
  unsigned unwritten;              // some wrong element still held the poison
};

// Checks C (ldc) against alpha·products + beta·C_initial, element by element, within the
// bound of src/core/verify.cc's element_bound (its terms come in as the last arguments). With
// beta == 0 C was poisoned before the run: NaN for floats, 0x5a5a5a5a for s32.
GT_KERNEL_LINKAGE __global__ void gemmtune_compare(const gt_out_t* c, const gt_out_t* c_initial, const double* products,
                                            const double* a_norms, const double* b_norms, long long m, long long n,
                                            long long ldc, double alpha, double beta, double per_magnitude,
                                            double f32_unit, double output_unit, double output_floor,
                                            gt_verify_result* result) {
  const long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const long long i = (long long)blockIdx.y * blockDim.y + threadIdx.y;
  if (i >= m || j >= n) return;
  const double product = products[i * n + j];
  const double initial = beta != 0.0 ? gt_out_value(c_initial, i * ldc + j) : 0.0;
  const double expected = alpha * product + beta * initial;
  bool wrong, unwritten = false;
  double ratio = 0;
#if GT_OUT == 3
  // Integer arithmetic is exact: no bound, no norms.
  (void)a_norms, (void)b_norms, (void)per_magnitude, (void)f32_unit, (void)output_unit, (void)output_floor;
  const int wrapped = (int)(unsigned)(long long)expected;
  wrong = c[i * ldc + j] != wrapped;
  unwritten = wrong && beta == 0.0 && c[i * ldc + j] == 0x5a5a5a5a;
#else
  const double got = gt_out_value(c, i * ldc + j);
  if (isnan(expected) || isinf(expected)) {
    wrong = isnan(expected) ? !isnan(got) : got != expected;
  } else if (isnan(got)) {
    wrong = true;
    unwritten = beta == 0.0;
  } else {
    const double magnitude = a_norms[i] * b_norms[j];
    const double scaled = fabs(alpha * product), held = fabs(beta * initial);
    const double before_output = per_magnitude * fabs(alpha) * magnitude + 2.0 * f32_unit * (scaled + held);
    const double bound = before_output + output_unit * (scaled + held + before_output) + output_floor;
    const double error = fabs(got - expected);
    wrong = !(error <= bound);
    ratio = bound > 0 ? error / bound : error;
  }
#endif
  if (ratio > 0) atomicMax(&result->largest_ratio_bits, __float_as_uint((float)ratio));
  if (wrong) {
    atomicAdd(&result->wrong, 1ULL);
    atomicMin(&result->first_wrong, (unsigned long long)(i * n + j));
    if (unwritten) atomicOr(&result->unwritten, 1u);
  }
}
