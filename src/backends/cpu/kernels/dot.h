// The dot kernel, direct (no packing): A and B contiguous along k (C = A·Wᵀ with W stored
// n × k). An MR × NC tile of dot products accumulates along k in vectors and is reduced at the
// end. Each row of W is read once per MR rows of A, so a skinny product streams W at memory
// speed.
#pragma once

#include "rows_block.h"
#include "direct_entry.h"

namespace gemmtune::cpu::GEMMTUNE_ISA_NAMESPACE {
namespace {

// Vectors along k of A and of W, and their dot product accumulated per lane. kStep: k values
// one vector covers.
template <DType In> struct DotOps;
template <> struct DotOps<DType::f32> {
  static constexpr int kStep = kLanes;
  using Acc = VF;
  using Operand = VF;
  static VF load_a(const float* p, int n) { return n >= kLanes ? load_f(p) : lanes_f32(p, n); }
  static VF load_w(const float* p, int n) { return load_a(p, n); }
  static VF madd(VF acc, VF a, VF w) { return fma(a, w, acc); }
};
template <> struct DotOps<DType::f16> {
  static constexpr int kStep = kLanes;
  using Acc = VF;
  using Operand = VF;
  static VF load_a(const std::uint16_t* p, int n) { return lanes_f16(p, n); }
  static VF load_w(const std::uint16_t* p, int n) { return lanes_f16(p, n); }
  static VF madd(VF acc, VF a, VF w) { return fma(a, w, acc); }
};
#if GEMMTUNE_ISA_LEVEL >= 4
template <> struct DotOps<DType::bf16> {
  static constexpr int kStep = 2 * kLanes;
  using Acc = VF;
  using Operand = VI;
  static VI load_a(const std::uint16_t* p, int n) { return raw_bytes(p, 2 * n); }
  static VI load_w(const std::uint16_t* p, int n) { return raw_bytes(p, 2 * n); }
  static VF madd(VF acc, VI a, VI w) { return dpbf16(acc, a, w); }
};
#else
template <> struct DotOps<DType::bf16> {
  static constexpr int kStep = kLanes;
  using Acc = VF;
  using Operand = VF;
  static VF load_a(const std::uint16_t* p, int n) { return lanes_bf16(p, n); }
  static VF load_w(const std::uint16_t* p, int n) { return lanes_bf16(p, n); }
  static VF madd(VF acc, VF a, VF w) { return fma(a, w, acc); }
};
#endif
#if GEMMTUNE_ISA_LEVEL >= 3
// VNNI multiplies u8 by s8: W's bytes are shifted to unsigned (an xor of the sign bit, so a
// zero-filled tail still contributes nothing against A's zeros), which adds 128·Σ_k A to every
// dot product; the tile subtracts it at the end.
template <> struct DotOps<DType::s8> {
  static constexpr int kStep = 4 * kLanes;
  static constexpr bool kShiftW = true;
  using Acc = VI;
  using Operand = VI;
  static VI load_a(const std::int8_t* p, int n) { return raw_bytes(p, n); }
  static VI load_w(const std::int8_t* p, int n) { return xor_i(raw_bytes(p, n), set1_i(std::int32_t(0x80808080u))); }
  static VI madd(VI acc, VI a, VI w) { return dpbusd(acc, w, a); }
};
#else
template <> struct DotOps<DType::s8> {
  static constexpr int kStep = 2 * kLanes;
  using Acc = VI;
  using Operand = VI;
  static VI load_a(const std::int8_t* p, int n) { return s8_pairs(p, n); }
  static VI load_w(const std::int8_t* p, int n) { return s8_pairs(p, n); }
  static VI madd(VI acc, VI a, VI w) { return madd16(acc, a, w); }
};
#endif

template <class Ops, class = void> struct ShiftsW : std::false_type {};
template <class Ops> struct ShiftsW<Ops, std::void_t<decltype(Ops::kShiftW)>> : std::bool_constant<Ops::kShiftW> {};

inline float reduce(VF v) { return reduce_f(v); }
inline std::int32_t reduce(VI v) { return reduce_i(v); }

// One element of C from a finished dot product, in C's dtype.
template <DType Out, class T>
inline void write_element(StorageT<Out>* p, T dot, const Scale& s) {
  if constexpr (Out == DType::s32) {
    std::int32_t v = s.alpha_one ? dot : std::int32_t(std::uint32_t(s.alpha_i) * std::uint32_t(dot));
    if (!s.beta_zero) v = std::int32_t(std::uint32_t(v) + std::uint32_t(s.beta_i) * std::uint32_t(*p));
    *p = v;
  } else {
    float v = s.alpha * float(dot);
    if constexpr (Out == DType::f32) {
      if (!s.beta_zero) v += s.beta * *p;
      *p = v;
    } else if constexpr (Out == DType::f16) {
      if (!s.beta_zero) v += s.beta * scalar_f16(*p);
      *p = f16_store(v);
    } else {
      if (!s.beta_zero) v += s.beta * bf16_bits_to_float(*p);
      *p = float_to_bf16_bits(v);
    }
  }
}

// What every tile of one call shares, as locals (see RowsJob). head: the k values before one
// operand's rows reach a vector boundary (dot_head), run as a first, masked step.
struct DotJob {
  std::int64_t k, a_rs, b_cs, ldc;
  Scale scale;
  int head;
};

// Where k step s of a dot tile begins: step 0 is the head when there is one, and every later
// step a whole vector of W.
template <int kStep>
inline std::int64_t dot_step_begin(std::int64_t s, int head) {
  return head == 0 ? s * kStep : s == 0 ? 0 : head + (s - 1) * kStep;
}
template <int kStep>
inline std::int64_t dot_steps(std::int64_t k, int head) {
  return head == 0 ? ceil_div(k, kStep) : 1 + ceil_div(k - head, kStep);
}

// The head of a dot kernel's k loop (aligned_head): the k values before one operand's rows
// reach a vector boundary, after which every load of that operand is aligned. A's, when a step
// loads more of its rows (MR, read where they lie) than of W's columns (NC) and its rows share
// one offset; W's otherwise, and always when A is packed (its steps lie on boundaries whatever
// the head). Where A's and W's rows share their offset, either head aligns both.
template <DType In, int MR, int NC>
inline int dot_head(const StorageT<In>* a, std::int64_t a_rs, const StorageT<In>* w, std::int64_t b_cs,
                    std::int64_t k, bool packed_a) {
  using S = StorageT<In>;
  constexpr int kStep = DotOps<In>::kStep;
  if (!packed_a && MR > NC && rows_offset<S, kStep>(a, a_rs) >= 0) return aligned_head<S, kStep>(a, a_rs, k);
  return aligned_head<S, kStep>(w, b_cs, k);
}

// An MR × NC tile of C at c (row 0 of the tile, column 0 of W at w). A comes either as rows
// a_rs apart (kPackedA false) or packed: for each k step, the tile's MR vectors one after the
// other, zero past k (pack_dot_rows). Rows [first, last) of the tile are written.
template <DType In, DType Out, int MR, int NC, bool kPackedA>
void dot_block(const DotJob& job, const StorageT<In>* a, const StorageT<In>* w, StorageT<Out>* c, int first,
               int last) {
  using Ops = DotOps<In>;
  using Acc = typename Ops::Acc;
  constexpr bool kShift = ShiftsW<Ops>::value;
  constexpr int kStep = Ops::kStep;
  const std::int64_t k = job.k, a_rs = job.a_rs, b_cs = job.b_cs;
  Acc acc[MR][NC];
  VI a_sums[MR];  // Σ_k A per row, for the compensation of a shifted W
#pragma GCC unroll 32
  for (int r = 0; r < MR; ++r) {
    a_sums[r] = zero_i();
#pragma GCC unroll 8
    for (int q = 0; q < NC; ++q) acc[r][q] = Acc{};
  }
  // One step of n values of k: W's columns from w_at, A's rows from a_at, or packed A's
  // vectors for the step at a_step.
  auto step = [&](const StorageT<In>* w_at, const StorageT<In>* a_at, const StorageT<In>* a_step, int n)
                  __attribute__((always_inline)) {
    typename Ops::Operand wv[NC];
#pragma GCC unroll 8
    for (int q = 0; q < NC; ++q) wv[q] = Ops::load_w(w_at + q * b_cs, n);
#pragma GCC unroll 32
    for (int r = 0; r < MR; ++r) {
      const typename Ops::Operand x =
          kPackedA ? Ops::load_a(a_step + r * kStep, kStep) : Ops::load_a(a_at + r * a_rs, n);
#if GEMMTUNE_ISA_LEVEL >= 3
      if constexpr (kShift) a_sums[r] = dpbusd(a_sums[r], set1_i(0x01010101), x);
#endif
#pragma GCC unroll 8
      for (int q = 0; q < NC; ++q) acc[r][q] = Ops::madd(acc[r][q], x, wv[q]);
    }
  };
  const int head = job.head;
  if (head > 0) step(w, a, a, head);
  // The rest from offset 0 of rebased pointers: the loop's one index addresses every row of W
  // from a fixed base (GCC recomputed each row's address every step when the index began at
  // the head, and the stream of W slowed by 15 %).
  const StorageT<In>* w_rest = w + head;
  const StorageT<In>* a_rest = a + head;
  const StorageT<In>* packed_rest = a + (head > 0 ? MR * kStep : 0);
  const std::int64_t rest = k - head;
  std::int64_t p = 0;
  for (; p + kStep <= rest; p += kStep) step(w_rest + p, a_rest + p, packed_rest + p * MR, kStep);
  if (p < rest) step(w_rest + p, a_rest + p, packed_rest + p * MR, int(rest - p));
  if constexpr (In != DType::s8) {  // f32 accumulators
    // The MR dot products of a column reduced together, kLanes at a time.
#pragma GCC unroll 8
    for (int q = 0; q < NC; ++q) {
#pragma GCC unroll 8
      for (int r0 = 0; r0 < MR; r0 += kLanes) {
        VF group[kLanes];
#pragma GCC unroll 32
        for (int l = 0; l < kLanes; ++l) group[l] = r0 + l < MR ? acc[r0 + l < MR ? r0 + l : 0][q] : zero_f();
        const VF sums = reduce_lanes(group);
        if (job.ldc == 1 && first == 0) {
          // A one-column C: the sums are consecutive elements of C.
          write_c<Out>(c + r0 + q, sums, std::min(kLanes, last - r0), job.scale);
          continue;
        }
        alignas(64) float lane[kLanes];
        store_f(lane, sums);
        for (int l = 0; l < kLanes && r0 + l < MR; ++l) {
          if (r0 + l >= first && r0 + l < last) write_element<Out>(c + (r0 + l) * job.ldc + q, lane[l], job.scale);
        }
      }
    }
  } else {
#pragma GCC unroll 32
    for (int r = 0; r < MR; ++r) {
      if (r < first || r >= last) continue;
      const std::int32_t shift = kShift ? 128 * reduce_i(a_sums[r]) : 0;
#pragma GCC unroll 8
      for (int q = 0; q < NC; ++q) {
        std::int32_t dot = reduce(acc[r][q]);
        if constexpr (kShift) dot = std::int32_t(std::uint32_t(dot) - std::uint32_t(shift));
        write_element<Out>(c + r * job.ldc + q, dot, job.scale);
      }
    }
  }
}

// Rows [i_begin, i_end) of A, contiguous along k, packed for dot_block: tile t of MR rows,
// step s of at most kStep values (dot_step_begin): MR vectors at out[(t·steps + s)·MR·kStep],
// zero past the step's end and past the last row. The rows of A sit k elements apart, often a
// multiple of 4 KiB: read side by side they would all fall in one L1 set; packed, a tile's
// rows are one stream.
template <DType In, int MR>
void pack_dot_rows(const StorageT<In>* a, std::int64_t a_rs, std::int64_t k, int head, std::int64_t rows,
                   StorageT<In>* out) {
  using S = StorageT<In>;
  constexpr int kStep = DotOps<In>::kStep;
  const std::int64_t steps = dot_steps<kStep>(k, head);
  for (std::int64_t t = 0; t < ceil_div(rows, MR); ++t) {
    for (int r = 0; r < MR; ++r) {
      const std::int64_t row = t * MR + r;
      S* dst = out + t * steps * MR * kStep + r * kStep;
      for (std::int64_t q = 0; q < steps; ++q) {
        S* step = dst + q * MR * kStep;
        const std::int64_t begin = dot_step_begin<kStep>(q, head);
        const std::int64_t count = row >= rows ? 0 : min64(q == 0 && head > 0 ? head : kStep, k - begin);
        if (count < kStep) __builtin_memset(step, 0, sizeof(S) * kStep);
        if (count > 0) __builtin_memcpy(step, a + row * a_rs + begin, std::size_t(count) * sizeof(S));
      }
    }
  }
}

template <DType In, DType Out, int MR, int NC>
void dot_range(const CpuGemmParams& P, const StorageT<In>* a, const StorageT<In>* b, StorageT<Out>* c,
               std::int64_t i_begin, std::int64_t i_end, std::int64_t j_begin, std::int64_t j_end) {
  using S = StorageT<In>;
  constexpr int kStep = DotOps<In>::kStep;
  const std::int64_t rows = i_end - i_begin;
  a += i_begin * P.a_rs;
  c += i_begin * P.ldc;
  // A is packed when it is reused over enough tiles of columns to repay the copy.
  const bool pack_a = j_end - j_begin >= 8 * NC;
  const DotJob job{P.k, P.a_rs, P.b_cs, P.ldc, scale_of(P), dot_head<In, MR, NC>(a, P.a_rs, b, P.b_cs, P.k, pack_a)};
  if (pack_a) {
    const std::int64_t tile = dot_steps<kStep>(P.k, job.head) * MR * kStep;
    S* packed = static_cast<S*>(thread_scratch(0, std::size_t(ceil_div(rows, MR) * tile) * sizeof(S)));
    pack_dot_rows<In, MR>(a, P.a_rs, P.k, job.head, rows, packed);
    auto columns = [&](auto nc, std::int64_t j) {
      for (std::int64_t i = 0; i < rows; i += MR) {
        dot_block<In, Out, MR, decltype(nc)::value, true>(job, packed + (i / MR) * tile, b + j * P.b_cs, c + i * P.ldc + j,
                                                         0, int(min64(MR, rows - i)));
      }
    };
    // Columns outermost: NC rows of W stay in L1 while every row tile of A passes them.
    std::int64_t j = j_begin;
    for (; j + NC <= j_end; j += NC) columns(std::integral_constant<int, NC>{}, j);
    for (; j < j_end; ++j) columns(std::integral_constant<int, 1>{}, j);
    return;
  }
  auto columns = [&](auto nc, std::int64_t j) {
    constexpr int kColumns = decltype(nc)::value;
    std::int64_t i = 0;
    for (; i + MR <= rows; i += MR) {
      dot_block<In, Out, MR, kColumns, false>(job, a + i * P.a_rs, b + j * P.b_cs, c + i * P.ldc + j, 0, MR);
    }
    halving_tiles<largest_power_of_2_below(MR)>(int(rows - i), [&](auto height, int r) __attribute__((always_inline)) {
      dot_block<In, Out, decltype(height)::value, kColumns, false>(job, a + (i + r) * P.a_rs, b + j * P.b_cs,
                                                                   c + (i + r) * P.ldc + j, 0, height);
    });
  };
  std::int64_t j = j_begin;
  for (; j + NC <= j_end; j += NC) columns(std::integral_constant<int, NC>{}, j);
  for (; j < j_end; ++j) columns(std::integral_constant<int, 1>{}, j);
}

template <DType In, DType Out, int MR, int NC>
void gemm_direct_dot(const CpuGemmParams& P, const void* a, const void* b, void* c) {
  run_direct<In, Out>(P, a, b, c, MR, NC, &dot_range<In, Out, MR, NC>);
}

}  // namespace
}  // namespace gemmtune::cpu::GEMMTUNE_ISA_NAMESPACE
