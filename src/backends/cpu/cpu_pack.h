// Packed formats and packing for the packed kernel (kernels/packed.h).
//
// A panel is `width` positions (rows of A or columns of B) × a depth of k, stored as 32-bit
// words: word (q, x) at out[q·W + x] holds kGroup consecutive k values of position x, so that
// one vector load of a B panel gives kLanes columns and one 32-bit broadcast of an A panel gives
// one row, each for kGroup steps of k. The format decides what a word holds:
//   fma     one f32 (f32, and f16/bf16 converted once here)     acc += a·b          (f32)
//   madd16  two s16 (s8 widened)                                 acc += a0·b0 + a1·b1 (s32)
//   dpbusd  four u8 of A (s8 + 128) or four s8 of B (VNNI)       acc += Σ a_i·b_i     (s32)
//   dpbf16  two bf16 (AVX512_BF16)                               acc += a0·b0 + a1·b1 (f32)
// For dpbusd, A is shifted to unsigned and C gets −128·Σ_k B back from each panel's column sums.
#pragma once

#include "cpu_tile_io.h"

namespace gemmtune::cpu::GEMMTUNE_ISA_NAMESPACE {
namespace {

inline float word_as_float(const std::int32_t* p) {
  float x;
  __builtin_memcpy(&x, p, 4);
  return x;
}

struct FmaFormat {
  static constexpr int kGroup = 1;
  static constexpr bool kShiftA = false;  // A's words made unsigned, C compensated
  using Acc = VF;
  using Operand = VF;
  static Operand load_b(const std::int32_t* p) { return load_f(reinterpret_cast<const float*>(p)); }
  static Operand bcast_a(const std::int32_t* p) { return set1_f(word_as_float(p)); }
  static Acc madd(Acc acc, Operand a, Operand b) { return fma(a, b, acc); }

  // kLanes words of consecutive k values from a source contiguous along k (`elems` valid).
  static VI along_k(const float* p, int elems) { return as_i(lanes_f32(p, elems)); }
  static VI along_k(const std::uint16_t* p, int elems, std::integral_constant<DType, DType::f16>) {
    return as_i(lanes_f16(p, elems));
  }
  static VI along_k(const std::uint16_t* p, int elems, std::integral_constant<DType, DType::bf16>) {
    return as_i(lanes_bf16(p, elems));
  }
  // kLanes words of consecutive positions (`cols` valid) from source rows k, k+1 … (`depth`
  // valid of kGroup), `ld` apart.
  static VI across(const float* p, std::int64_t, int cols, int) { return as_i(lanes_f32(p, cols)); }
  static VI across(const std::uint16_t* p, std::int64_t, int cols, int, std::integral_constant<DType, DType::f16>) {
    return as_i(lanes_f16(p, cols));
  }
  static VI across(const std::uint16_t* p, std::int64_t, int cols, int, std::integral_constant<DType, DType::bf16>) {
    return as_i(lanes_bf16(p, cols));
  }
};

struct Madd16Format {
  static constexpr int kGroup = 2;
  static constexpr bool kShiftA = false;
  using Acc = VI;
  using Operand = VI;
  static Operand load_b(const std::int32_t* p) { return load_i(p); }
  static Operand bcast_a(const std::int32_t* p) { return bcast_word(p); }
  static Acc madd(Acc acc, Operand a, Operand b) { return madd16(acc, a, b); }
  static VI along_k(const std::int8_t* p, int elems) { return s8_pairs(p, elems); }
  static VI across(const std::int8_t* p, std::int64_t ld, int cols, int depth) {
    const VI low = and_i(lanes_s8(p, cols), set1_i(0xffff));
    return depth > 1 ? or_i(low, shl_i<16>(lanes_s8(p + ld, cols))) : low;
  }
};

#if GEMMTUNE_ISA_LEVEL >= 3
struct DpbusdFormat {
  static constexpr int kGroup = 4;
  static constexpr bool kShiftA = true;
  using Acc = VI;
  using Operand = VI;
  static Operand load_b(const std::int32_t* p) { return load_i(p); }
  static Operand bcast_a(const std::int32_t* p) { return bcast_word(p); }
  static Acc madd(Acc acc, Operand a, Operand b) { return dpbusd(acc, a, b); }
  static VI along_k(const std::int8_t* p, int elems) { return raw_bytes(p, elems); }
  static VI across(const std::int8_t* p, std::int64_t ld, int cols, int depth) {
    VI w = lanes_u8(p, cols);
    if (depth > 1) w = or_i(w, shl_i<8>(lanes_u8(p + ld, cols)));
    if (depth > 2) w = or_i(w, shl_i<16>(lanes_u8(p + 2 * ld, cols)));
    if (depth > 3) w = or_i(w, shl_i<24>(lanes_u8(p + 3 * ld, cols)));
    return w;
  }
};
#endif

#if GEMMTUNE_ISA_LEVEL >= 4
struct Dpbf16Format {
  static constexpr int kGroup = 2;
  static constexpr bool kShiftA = false;
  using Acc = VF;
  using Operand = VI;
  static Operand load_b(const std::int32_t* p) { return load_i(p); }
  static Operand bcast_a(const std::int32_t* p) { return bcast_word(p); }
  static Acc madd(Acc acc, Operand a, Operand b) { return dpbf16(acc, a, b); }
  static VI along_k(const std::uint16_t* p, int elems) { return raw_bytes(p, 2 * elems); }
  static VI across(const std::uint16_t* p, std::int64_t ld, int cols, int depth) {
    const VI low = lanes_u16(p, cols);
    return depth > 1 ? or_i(low, shl_i<16>(lanes_u16(p + ld, cols))) : low;
  }
};
#endif

// The format of an input dtype on this ISA level.
template <DType In> struct FormatOf { using type = FmaFormat; };
template <> struct FormatOf<DType::s8> {
#if GEMMTUNE_ISA_LEVEL >= 3
  using type = DpbusdFormat;
#else
  using type = Madd16Format;
#endif
};
#if GEMMTUNE_ISA_LEVEL >= 4
template <> struct FormatOf<DType::bf16> { using type = Dpbf16Format; };
#endif

// The source readers of a format for one input dtype (f16 and bf16 share a storage type, so
// FmaFormat's readers take the dtype as a tag).
template <class F, DType In>
inline VI words_along_k(const StorageT<In>* p, int elems) {
  if constexpr (std::is_same_v<F, FmaFormat> && (In == DType::f16 || In == DType::bf16)) {
    return F::along_k(p, elems, std::integral_constant<DType, In>{});
  } else {
    return F::along_k(p, elems);
  }
}
template <class F, DType In>
inline VI words_across(const StorageT<In>* p, std::int64_t ld, int cols, int depth) {
  if constexpr (std::is_same_v<F, FmaFormat> && (In == DType::f16 || In == DType::bf16)) {
    return F::across(p, ld, cols, depth, std::integral_constant<DType, In>{});
  } else {
    return F::across(p, ld, cols, depth);
  }
}

// How far ahead of its reads the packing of a source contiguous along k prefetches.
constexpr std::size_t kPrefetchBytes = 512;

inline void store_words(std::int32_t* p, VI v, int lanes) {
  if (lanes >= kLanes) store_i(p, v);
  else store_lanes_s32(p, v, lanes);
}

// One k group of a panel whose positions are contiguous in the source: W words from `row`
// (positions past `width` zero), source rows k_stride apart within the group (`depth` valid).
template <class F, DType In, bool kShift>
__attribute__((always_inline)) inline void pack_group_across(const StorageT<In>* row, std::int64_t k_stride, int width,
                                                             int depth, int W, std::int32_t* out) {
  const VI shift = set1_i(std::int32_t(0x80808080u));
  for (int x0 = 0; x0 < W; x0 += kLanes) {
    const int lanes = W - x0 < kLanes ? W - x0 : kLanes;
    const int valid = width - x0 < 0 ? 0 : (width - x0 < lanes ? width - x0 : lanes);
    VI w = valid > 0 ? words_across<F, In>(row + x0, k_stride, valid, depth) : zero_i();
    if constexpr (kShift) w = xor_i(w, shift);
    store_words(out + x0, w, lanes);
  }
}

// Packs positions [0, width) × depth [0, kb) of a source with element (x, p) at
// src[x·pos_stride + p·k_stride] into a panel of W words per k group (W ≥ width); positions
// past `width` and depth past kb are zero. One of the strides is 1: along k, words are built
// per position and transposed kLanes × kLanes; across, they are read kLanes positions at once.
// kShift: A of a dpbusd format, whose bytes are made unsigned (s8 + 128, an xor of the sign).
template <class F, DType In, bool kShift>
__attribute__((always_inline)) inline void pack_panel(const StorageT<In>* src, std::int64_t pos_stride, std::int64_t k_stride, int width, std::int64_t kb,
                int W, std::int32_t* out) {
  constexpr int G = F::kGroup;
  const std::int64_t groups = ceil_div(kb, G);
  const VI shift = set1_i(std::int32_t(0x80808080u));
  if (k_stride == 1) {
    for (int x0 = 0; x0 < W; x0 += kLanes) {
      const int lanes = W - x0 < kLanes ? W - x0 : kLanes;
      const int valid = width - x0 < 0 ? 0 : (width - x0 < lanes ? width - x0 : lanes);
      for (std::int64_t q0 = 0; q0 < groups; q0 += kLanes) {
        const int elems = int(min64(kb - q0 * G, std::int64_t(kLanes) * G));
        VI rows[kLanes];
        for (int x = 0; x < kLanes; ++x) {
          const StorageT<In>* row = src + (x0 + x) * pos_stride + q0 * G;
          // kLanes rows far apart in memory are read side by side: fetch each a few lines
          // ahead, since a hardware prefetcher follows only so many streams.
          if (x < valid) prefetch_l1(row + kPrefetchBytes / sizeof(StorageT<In>));
          rows[x] = x < valid ? words_along_k<F, In>(row, elems) : zero_i();
          if constexpr (kShift) rows[x] = xor_i(rows[x], shift);
        }
        transpose(rows);
        const int words = int(min64(groups - q0, kLanes));
        for (int q = 0; q < words; ++q) {
          std::int32_t* at = out + (q0 + q) * W + x0;
          // A panel narrower than a vector (an A panel of MR < kLanes rows) is written a whole
          // vector a group: the lanes past W spill into the next group's words, which its own
          // store then overwrites, in place of a partial store of W lanes (two stores and a
          // shuffle on AVX2, as masked stores are microcode on Zen 2 and 3). The groups whose
          // vector would reach past the panel's end are stored partially.
          if (W <= kLanes && (q0 + q) * W + kLanes <= groups * W) store_i(at, rows[q]);
          else store_words(at, rows[q], lanes);
        }
      }
    }
  } else {
    for (std::int64_t q = 0; q < groups; ++q) {
      pack_group_across<F, In, kShift>(src + q * G * k_stride, k_stride, width, int(min64(kb - q * G, G)), W,
                                       out + q * W);
    }
  }
}

// Source rows that pack_panels reads into every panel before it moves down to the next ones.
constexpr int kRowsAcrossPanels = 8;

// Packs positions [0, width) × depth [0, kb) into ceil(width / W) panels of pack_panel's format,
// panel j (positions j·W …) at out + j·W·groups. Where positions are contiguous (B of an nn or
// A of a tn product), panel after panel would walk each one down k a line per source row, rows
// a leading dimension apart (KiBs), where neither the stream prefetchers nor the TLB follow; here
// the rows are read along their length instead, a few rows into every panel at a time.
template <class F, DType In>
inline void pack_panels(const StorageT<In>* src, std::int64_t pos_stride, std::int64_t k_stride, std::int64_t width,
                        std::int64_t kb, int W, std::int32_t* out) {
  constexpr int G = F::kGroup;
  const std::int64_t groups = ceil_div(kb, G);
  const std::int64_t panels = ceil_div(width, W);
  if (k_stride == 1) {
    for (std::int64_t j = 0; j < panels; ++j) {
      pack_panel<F, In, false>(src + j * W * pos_stride, pos_stride, 1, int(min64(W, width - j * W)), kb, W,
                               out + j * W * groups);
    }
    return;
  }
  constexpr std::int64_t kGroupsAtOnce = kRowsAcrossPanels / G > 0 ? kRowsAcrossPanels / G : 1;
  for (std::int64_t q0 = 0; q0 < groups; q0 += kGroupsAtOnce) {
    const std::int64_t q1 = min64(groups, q0 + kGroupsAtOnce);
    for (std::int64_t j = 0; j < panels; ++j) {
      const int valid = int(min64(W, width - j * W));
      for (std::int64_t q = q0; q < q1; ++q) {
        pack_group_across<F, In, false>(src + q * G * k_stride + j * W, k_stride, valid, int(min64(kb - q * G, G)),
                                        W, out + j * W * groups + q * W);
      }
    }
  }
}

#if GEMMTUNE_ISA_LEVEL >= 3
// −128·Σ_k of each column of a dpbusd B panel (W a multiple of kLanes): what shifting A to
// unsigned added to every element of C.
inline void shift_compensation(const std::int32_t* panel, std::int64_t groups, int W, std::int32_t* comp) {
  const VI ones = set1_i(0x01010101);
  for (int x0 = 0; x0 < W; x0 += kLanes) {
    VI s = zero_i();
    for (std::int64_t q = 0; q < groups; ++q) s = dpbusd(s, ones, load_i(panel + q * W + x0));
    store_i(comp + x0, sub_i(zero_i(), shl_i<7>(s)));
  }
}
#endif

}  // namespace
}  // namespace gemmtune::cpu::GEMMTUNE_ISA_NAMESPACE
