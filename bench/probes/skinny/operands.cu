// The probe's operands: element types on the host (stored bits and values), random matrices
// made on the device, and the float64 reference of A·Bᵀ on every host core.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstring>
#include <thread>

#include "gemv_probe.cuh"

namespace gemv_probe {

// ---- Element types on the host: codes as the kernel's IN and OUT, stored bits, values. ----

std::size_t size_of(Type t) { return t == Type::s8 ? 1 : (t == Type::f16 || t == Type::bf16) ? 2 : 4; }
const char* name_of(Type t) {
  static const char* names[] = {"f16", "bf16", "s8", "f32", "s32"};
  return names[int(t)];
}
bool is_integer(Type t) { return t == Type::s8 || t == Type::s32; }

std::uint32_t encode(Type t, double v) {
  switch (t) {
    case Type::f16: return __half_as_ushort(__float2half_rn(float(v)));
    case Type::bf16: return __bfloat16_as_ushort(__float2bfloat16_rn(float(v)));
    case Type::s8: return std::uint8_t(std::int8_t(v));
    case Type::s32: return std::uint32_t(std::int32_t(std::int64_t(v)));
    default: {
      const float f = float(v);
      std::uint32_t bits;
      std::memcpy(&bits, &f, 4);
      return bits;
    }
  }
}
double decode(Type t, std::uint32_t bits) {
  switch (t) {
    case Type::f16: return __half2float(__ushort_as_half(std::uint16_t(bits)));
    case Type::bf16: {
      const std::uint32_t w = bits << 16;
      float f;
      std::memcpy(&f, &w, 4);
      return f;
    }
    case Type::s8: return std::int8_t(bits);
    case Type::s32: return std::int32_t(bits);
    default: {
      float f;
      std::memcpy(&f, &bits, 4);
      return f;
    }
  }
}
std::uint32_t poison_bits(Type t) { return t == Type::s8 ? 0x7f : t == Type::s32 ? 0x7eadbeef : 0xffffffffu; }

std::uint32_t load_bits(const std::vector<std::uint8_t>& bytes, Type t, std::size_t index) {
  std::uint32_t bits = 0;
  std::memcpy(&bits, bytes.data() + index * size_of(t), size_of(t));
  return bits;
}
void store_bits(std::vector<std::uint8_t>& bytes, Type t, std::size_t index, std::uint32_t bits) {
  std::memcpy(bytes.data() + index * size_of(t), &bits, size_of(t));
}

// ---- Random matrices, made on the device (hundreds of MB for the bench). ----

namespace {

// Element (r, c) of a rows × cols matrix with leading dimension ld: never zero; small integers
// (±1..±3, whose f32 sums are exact) or reals ±[0.25, 1) (s8: ±1..±64); columns past cols hold
// the type's poison.
__global__ void fill_random(void* p, int type, long long rows, long long cols, long long ld, std::uint64_t seed,
                            int integers, std::uint32_t poison) {
  const long long total = rows * ld;
  for (long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x; idx < total;
       idx += (long long)gridDim.x * blockDim.x) {
    const long long c = idx % ld;
    const std::uint64_t h = mix(seed ^ mix((std::uint64_t)idx));
    const float sign = (h & 1) ? -1.0f : 1.0f;
    const float u = float((h >> 8) & 0xffffff) / 16777216.0f;
    float v;
    if (integers) {
      v = sign * float(1 + int(u * 3.0f));
    } else {
      v = type == int(Type::s8) ? sign * float(1 + int(u * 64.0f)) : sign * (0.25f + 0.75f * u);
    }
    const bool pad = c >= cols;
    switch (Type(type)) {
      case Type::f16: ((std::uint16_t*)p)[idx] = pad ? std::uint16_t(poison) : __half_as_ushort(__float2half_rn(v)); break;
      case Type::bf16:
        ((std::uint16_t*)p)[idx] = pad ? std::uint16_t(poison) : __bfloat16_as_ushort(__float2bfloat16_rn(v));
        break;
      case Type::s8: ((std::int8_t*)p)[idx] = pad ? std::int8_t(poison) : std::int8_t(v); break;
      case Type::s32: ((std::int32_t*)p)[idx] = pad ? std::int32_t(poison) : std::int32_t(v); break;
      default: ((float*)p)[idx] = pad ? __uint_as_float(poison) : v; break;
    }
  }
}

DeviceBuffer random_matrix(Type t, long long rows, long long cols, long long ld, std::uint64_t seed, Values values) {
  DeviceBuffer buf(std::size_t(rows * ld) * size_of(t));
  fill_random<<<1024, 256>>>(buf.ptr, int(t), rows, cols, ld, seed, values == Values::small_integers, poison_bits(t));
  CUDA_OK(cudaGetLastError());
  CUDA_OK(cudaDeviceSynchronize());  // the kernels run on another stream, which does not wait for this one
  return buf;
}

}  // namespace

// ---- The problem and the float64 reference. ----

Operands make_operands(Type in, long long rows_a, long long n, long long k, long long ld, std::uint64_t seed,
                       Values values) {
  return Operands{in, rows_a, n, k, ld, ld, random_matrix(in, rows_a, k, ld, seed, values),
                  random_matrix(in, n, k, ld, seed + 1, values), {}, {}};
}

void compute_reference(Operands& op) {
  const auto to_values = [&](const DeviceBuffer& buf, long long rows, long long ld) {
    const std::vector<std::uint8_t> bytes = buf.to_host();
    std::vector<float> v(std::size_t(rows * op.k));
    for (long long r = 0; r < rows; ++r)
      for (long long c = 0; c < op.k; ++c) v[r * op.k + c] = float(decode(op.in, load_bits(bytes, op.in, r * ld + c)));
    return v;
  };
  const std::vector<float> a = to_values(op.a, op.rows_a, op.lda), b = to_values(op.b, op.n, op.ldb);
  op.dot.assign(std::size_t(op.rows_a * op.n), 0.0);
  op.abs_dot.assign(op.dot.size(), 0.0);
  const unsigned workers = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::thread> threads;
  for (unsigned w = 0; w < workers; ++w) {
    threads.emplace_back([&, w] {
      for (long long j = w; j < op.n; j += workers) {
        const float* bj = &b[j * op.k];
        for (long long i = 0; i < op.rows_a; ++i) {
          const float* ai = &a[i * op.k];
          double s = 0, sa = 0;
          for (long long kk = 0; kk < op.k; ++kk) {
            const double p = double(ai[kk]) * double(bj[kk]);
            s += p;
            sa += std::fabs(p);
          }
          op.dot[i * op.n + j] = s;
          op.abs_dot[i * op.n + j] = sa;
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
}

}  // namespace gemv_probe
