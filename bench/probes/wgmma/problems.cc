// The probe's problems: configs parsed from the command line, the element types, a problem
// mapped to the kernel's instance through the backend's own mapping, and the host-side values of
// the inputs (random) and outputs (read back).
#include <cmath>
#include <cstdint>
#include <cstring>

#include "wgmma_probe.h"

namespace wgmma_probe {

// ---- configs ----

Config parse_config(const std::string& text) {
  Config c;
  std::vector<std::string> parts;
  std::stringstream s(text);
  for (std::string p; std::getline(s, p, '.');) parts.push_back(p);
  if (parts.size() < 6) {
    std::fprintf(stderr, "bad config %s\n", text.c_str());
    std::exit(2);
  }
  c.bm = std::stoi(parts[0]);
  c.bn = std::stoi(parts[1]);
  c.stages = std::stoi(parts[2]);
  c.consumers = std::stoi(parts[3]);
  c.cluster_m = std::stoi(parts[4]);
  c.cluster_n = std::stoi(parts[5]);
  for (std::size_t i = 6; i < parts.size(); ++i) {
    if (parts[i] == "swap") c.swap = true;
    else if (parts[i] == "pp") c.pingpong = true;
    else if (parts[i] == "direct") c.direct = true;
    else if (parts[i] == "d0") c.depth = 0;
    else if (parts[i] == "sk") c.stream_k = true;
    else if (parts[i] == "cl") c.split_cluster = true;
    else if (parts[i][0] == 'g') c.group_m = std::stoi(parts[i].substr(1));
    else if (parts[i][0] == 'k') c.split = std::stoi(parts[i].substr(1));
    else {
      std::fprintf(stderr, "bad config flag %s\n", parts[i].c_str());
      std::exit(2);
    }
  }
  return c;
}

// ---- problems ----

int bytes_of(Type t) { return t == Type::f32 || t == Type::s32 ? 4 : t == Type::s8 ? 1 : 2; }
int in_code(Type t) { return t == Type::f16 ? 0 : t == Type::bf16 ? 1 : t == Type::f32 ? 2 : 3; }
int out_code(Type t) { return t == Type::f32 ? 0 : t == Type::f16 ? 1 : t == Type::bf16 ? 2 : 3; }
const char* type_name(Type t) {
  switch (t) {
    case Type::f16: return "f16";
    case Type::bf16: return "bf16";
    case Type::f32: return "f32";
    case Type::s8: return "s8";
    default: return "s32";
  }
}

Mapping map_problem(const Shape& p, const Config& c, const void* a, const void* b) {
  gemmtune::ProblemSpec spec;
  const gemmtune::DType in = p.in == Type::f16 ? gemmtune::DType::f16 : p.in == Type::bf16 ? gemmtune::DType::bf16
                             : p.in == Type::f32 ? gemmtune::DType::f32 : gemmtune::DType::s8;
  spec.m = p.m;
  spec.n = p.n;
  spec.k = p.k;
  spec.a_type = spec.b_type = in;
  spec.c_type = p.out == Type::f16 ? gemmtune::DType::f16 : p.out == Type::bf16 ? gemmtune::DType::bf16
                : p.out == Type::f32 ? gemmtune::DType::f32 : gemmtune::DType::s32;
  spec.a_layout = p.a_row ? gemmtune::Layout::row_major : gemmtune::Layout::col_major;
  spec.b_layout = p.b_col ? gemmtune::Layout::col_major : gemmtune::Layout::row_major;
  spec.alpha = p.alpha;
  spec.beta = p.beta;
  spec.allow_tf32 = in == gemmtune::DType::f32;
  auto problem = gemmtune::Problem::create(spec);
  if (!problem.is_ok()) {
    std::fprintf(stderr, "%s: %s\n", p.describe().c_str(), problem.status().message().c_str());
    std::exit(2);
  }
  gemmtune::KernelConfig k;
  k.block_m = c.bm;
  k.block_n = c.bn;
  k.block_k = gemmtune::cuda::wgmma_block_k(in);
  k.stages = c.stages;
  k.warps = 4 * (c.consumers + 1);
  k.pingpong = c.pingpong;
  k.cluster_m = c.cluster_m;
  k.cluster_n = c.cluster_n;
  k.swap_ab = c.swap;
  k.group_m = c.group_m;
  k.split_k = c.split;
  k.stream_k = c.stream_k;
  k.split_reduce = c.split_cluster ? 1 : 0;
  Mapping map = gemmtune::cuda::wgmma_mapping(*problem, k, a, b);
  if (c.direct) map.instance.c_tma = false;
  map.instance.wgmma_depth = c.depth;
  return map;
}

// ---- host-side values ----

static float bf16_value(std::uint16_t h) {
  std::uint32_t u = std::uint32_t(h) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
static std::uint16_t bf16_bits(float f) {
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  return std::uint16_t((u + 0x7FFF + ((u >> 16) & 1)) >> 16);
}
static float f16_value(std::uint16_t h) {
  const int sign = h >> 15, exponent = (h >> 10) & 31, mantissa = h & 1023;
  float v = exponent == 0 ? std::ldexp(float(mantissa), -24) : std::ldexp(float(mantissa | 1024), exponent - 25);
  return sign ? -v : v;
}
// Round to nearest for the normal range; the inputs are in (-1, 1), so values below f16's
// smallest normal (2^-14) are flushed to zero, which the reference then sees too.
static std::uint16_t f16_bits(float f) {
  const int sign = f < 0;
  f = std::fabs(f);
  if (f < std::ldexp(1.0f, -14)) return std::uint16_t(sign << 15);
  int e;
  std::frexp(f, &e);  // f = m·2^e, m in [0.5, 1)
  int mantissa = int(std::nearbyint(std::ldexp(f, 11 - e)));  // 1024..2048
  if (mantissa == 2048) {
    mantissa = 1024;
    ++e;
  }
  return std::uint16_t((sign << 15) | ((e + 14) << 10) | (mantissa & 1023));
}

std::vector<unsigned char> random_bytes(Type type, long long count, std::mt19937& rng) {
  std::vector<unsigned char> out(std::size_t(count) * bytes_of(type));
  std::uniform_real_distribution<float> real(-1.0f, 1.0f);
  std::uniform_int_distribution<int> small(-8, 8);
  for (long long i = 0; i < count; ++i) {
    switch (type) {
      case Type::s8: reinterpret_cast<signed char*>(out.data())[i] = (signed char)small(rng); break;
      case Type::f32: reinterpret_cast<float*>(out.data())[i] = real(rng); break;
      case Type::bf16: reinterpret_cast<std::uint16_t*>(out.data())[i] = bf16_bits(real(rng)); break;
      case Type::f16: reinterpret_cast<std::uint16_t*>(out.data())[i] = f16_bits(real(rng)); break;
      case Type::s32: reinterpret_cast<int*>(out.data())[i] = small(rng) * 100; break;
    }
  }
  return out;
}

double value_of(Type type, const unsigned char* data, long long i) {
  switch (type) {
    case Type::f32: return reinterpret_cast<const float*>(data)[i];
    case Type::s32: return reinterpret_cast<const int*>(data)[i];
    case Type::bf16: return bf16_value(reinterpret_cast<const std::uint16_t*>(data)[i]);
    case Type::f16: return f16_value(reinterpret_cast<const std::uint16_t*>(data)[i]);
    default: return reinterpret_cast<const signed char*>(data)[i];
  }
}

}  // namespace wgmma_probe
