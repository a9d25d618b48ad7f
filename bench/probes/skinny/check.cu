// The probe's `check` half: each kernel's C against the float64 reference, every element,
// with poisoned padding and poisoned C where the kernel must not read or write.
#include <cmath>

#include "gemv_probe.cuh"

namespace gemv_probe {

// ---- Checking C. ----
std::string compare_c(const std::vector<std::uint8_t>& got, const std::vector<std::uint8_t>& before,
                      const Operands& op, const Problem& p, Type out, bool exact) {
  const double out_eps = out == Type::bf16 ? 1.0 / 256 : out == Type::f16 ? 1.0 / 2048 : 1.0 / 8388608;
  long long bad = 0;
  char first[256] = "";
  for (long long i = 0; i < p.m; ++i) {
    for (long long j = 0; j < p.ldc; ++j) {
      const std::size_t at = std::size_t(i * p.ldc + j);
      const std::uint32_t bits = load_bits(got, out, at);
      bool ok;
      double want;
      if (j >= p.n) {
        want = decode(out, poison_bits(out));
        ok = bits == load_bits(before, out, at);
      } else {
        const double old = p.beta != 0 ? decode(out, load_bits(before, out, at)) : 0.0;
        const double dot = op.dot[i * op.n + j];
        if (is_integer(out)) {
          want = double(std::int32_t(std::int64_t(dot) + (p.beta != 0 ? std::int64_t(old) : 0)));
          ok = bits == encode(out, want);
        } else {
          want = double(p.alpha) * dot + double(p.beta) * old;
          if (exact) {
            ok = bits == encode(out, double(float(want)));
          } else {
            const double tol = out_eps * std::fabs(want) +
                               std::ldexp(std::fabs(p.alpha) * op.abs_dot[i * op.n + j] + std::fabs(p.beta * old), -15);
            ok = std::fabs(decode(out, bits) - want) <= tol;  // false for NaN
          }
        }
      }
      if (!ok && bad++ == 0) {
        std::snprintf(first, sizeof first, "C(%lld,%lld) = %.6g (bits %08x), want %.6g", i, j, decode(out, bits),
                      bits, want);
      }
    }
  }
  if (bad == 0) return "";
  return std::string(first) + " (" + std::to_string(bad) + " wrong of " + std::to_string(p.m * p.ldc) + ")";
}

namespace {

// C before a run: poison when beta = 0 (the kernel must not read it), else small random values;
// columns past n poisoned either way.
std::vector<std::uint8_t> c_before(Type out, const Problem& p, std::uint64_t seed) {
  std::vector<std::uint8_t> bytes(std::size_t(p.m * p.ldc) * size_of(out));
  for (long long i = 0; i < p.m; ++i)
    for (long long j = 0; j < p.ldc; ++j) {
      const std::uint64_t h = mix(seed ^ std::uint64_t(i * p.ldc + j));
      const double v = ((h & 1) ? -1.0 : 1.0) * double(1 + (h >> 8) % 3);
      const bool poison = p.beta == 0 || j >= p.n;
      store_bits(bytes, out, std::size_t(i * p.ldc + j), poison ? poison_bits(out) : encode(out, v));
    }
  return bytes;
}

// One run of one kernel: "" when C is right, else why not ("skip: ..." when it cannot run).
std::string run_checked(const Kernel& kn, const Setting& s, const Operands& op, const Problem& p, bool exact) {
  const Plan plan = plan_launch(kn, p, s);
  if (!plan.ok) return "skip: " + plan.why;
  const std::vector<std::uint8_t> before = c_before(kn.out, p, std::uint64_t(p.m * 131 + s.split));
  DeviceBuffer c(before.size());
  CUDA_OK(cudaMemcpy(c.ptr, before.data(), before.size(), cudaMemcpyHostToDevice));
  launch(kn, plan, p, op.a.ptr, op.b.ptr, c.ptr, s.pdl);
  CUDA_OK(cudaStreamSynchronize(g_device.stream));
  CUDA_OK(cudaGetLastError());
  return compare_c(c.to_host(), before, op, p, kn.out, exact);
}

struct CheckShape {
  long long n, k, ld;  // ld 0: k rounded up to a 16-byte vector
};

}  // namespace

int run_checks() {
  const CheckShape shapes[] = {{4100, 4104, 0}, {4099, 4100, 4112}, {37, 40, 48}};
  const long long ms[] = {1, 2, 3, 5, 8, 16};
  // warps, split, grid_x, pdl: one balanced wave; three slices (k's steps do not divide) and two
  // CTAs, so warps loop over groups; seven slices, more than some shapes have steps, the SMs filled.
  const Setting settings[] = {{4, 1, kBalanced, false}, {8, 3, 2, true}, {4, 7, kFill, true}};
  int passed = 0, failed = 0, skipped = 0;
  for (Type in : {Type::bf16, Type::f16, Type::s8}) {
    for (const CheckShape& shape : shapes) {
      for (Values values : {Values::small_integers, Values::reals}) {
        const long long vec = in == Type::s8 ? 16 : 8;
        const long long ld = shape.ld ? shape.ld : (shape.k + vec - 1) / vec * vec;
        Operands op = make_operands(in, 16, shape.n, shape.k, ld, 1000 + shape.n, values);
        compute_reference(op);
        for (const Kernel& kn : all_kernels()) {
          if (kn.in != in) continue;
          for (long long m : ms) {
            if (rows_compiled_for(m) != kn.M) continue;
            for (int si = 0; si < 3; ++si) {
              // Real-valued inputs: the first setting only (the small integers cover the rest).
              if (values == Values::reals && si > 0) continue;
              const Setting& s = settings[si];
              Problem p{m, shape.n, shape.k, ld, ld, shape.n + (si == 1 ? 5 : 0), 1.0f, 0.0f};
              if (si == 1) {
                p.alpha = is_integer(kn.out) ? 1.0f : 0.5f;
                p.beta = is_integer(kn.out) ? 1.0f : -2.0f;
              }
              const std::string r = run_checked(kn, s, op, p, values == Values::small_integers);
              const bool skip = r.rfind("skip:", 0) == 0;
              passed += r.empty();
              skipped += skip;
              failed += !r.empty() && !skip;
              if (!r.empty()) {
                std::printf("%s %s->%s M%d %s m=%lld n=%lld k=%lld ld=%lld %s%s a=%g b=%g %s: %s\n",
                            skip ? "SKIP" : "FAIL", name_of(kn.in), name_of(kn.out), kn.M, kn.variant().c_str(), m,
                            shape.n, shape.k, ld, s.name().c_str(), s.pdl ? " pdl" : "", p.alpha, p.beta,
                            values == Values::reals ? "reals" : "integers", r.c_str());
              }
            }
          }
        }
      }
    }
  }
  std::printf("check: %d passed, %d failed, %d skipped\n", passed, failed, skipped);
  return failed ? 1 : 0;
}

}  // namespace gemv_probe
