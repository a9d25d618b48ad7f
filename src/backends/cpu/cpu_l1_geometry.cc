// The L1 data cache's sets and ways, from cpuid, and how many lines of each row of B stay in
// it (b_lines_in_l1): the kernels read B off its lines through the window only where a
// tile's lines stay (kernels/rows_block.h, window_shift). sysfs has no cache entries on some VMs
// (the development VM's has none), so cpuid it is: leaf 4 (Intel) and 0x8000001D (AMD) list
// the caches in one format, and AMD's leaf 0x80000005 describes the L1 alone (the development
// VM's hypervisor answers only that one: 48 KiB, 12 ways).
#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <numeric>
#include <vector>

#include "cpu_kernels.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace gemmtune::cpu {
namespace {

constexpr L1Geometry kUnknown{0, 0};

// The level-1 data cache in a deterministic-cache-parameters leaf, or kUnknown if it lists none.
L1Geometry l1_from_leaf(unsigned leaf) {
#if defined(__x86_64__) || defined(__i386__)
  const unsigned highest = __get_cpuid_max(leaf & 0x80000000u, nullptr);
  if (highest < leaf) return kUnknown;
  for (unsigned index = 0; index < 16; ++index) {
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    if (!__get_cpuid_count(leaf, index, &eax, &ebx, &ecx, &edx)) return kUnknown;
    const unsigned type = eax & 0x1f, level = (eax >> 5) & 0x7;
    if (type == 0) return kUnknown;  // the list's end
    if (type == 1 && level == 1) return {int(ecx + 1), int((ebx >> 22) + 1)};
  }
#else
  (void)leaf;
#endif
  return kUnknown;
}

// AMD's L1 data cache descriptor: size in KiB, ways (0xff: fully associative) and line bytes.
L1Geometry l1_from_amd_descriptor() {
#if defined(__x86_64__) || defined(__i386__)
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid_max(0x80000000u, nullptr) < 0x80000005u || !__get_cpuid(0x80000005u, &eax, &ebx, &ecx, &edx)) {
    return kUnknown;
  }
  const unsigned kib = ecx >> 24, ways = (ecx >> 16) & 0xff, line = ecx & 0xff;
  if (kib == 0 || ways == 0 || ways == 0xff || line == 0) return kUnknown;
  return {int(kib * 1024 / (ways * line)), int(ways)};
#else
  return kUnknown;
#endif
}

L1Geometry detect() {
  for (unsigned leaf : {4u, 0x8000001Du, 0x80000005u}) {
    L1Geometry g = leaf == 0x80000005u ? l1_from_amd_descriptor() : l1_from_leaf(leaf);
    if (g.sets <= 0 || g.ways <= 0) continue;
    // The callers count sets as a power of two (the hardware's are).
    int sets = 1;
    while (sets * 2 <= g.sets) sets *= 2;
    return {sets, g.ways};
  }
  return {};  // 64 sets, 8 ways: the smallest of the x86 L1s with AVX-512
}

// The most lines that `lines` lines of each of k rows, `stride` lines apart, put in one set: a
// line's set is its address in lines modulo the sets. Rows a power of two apart begin in few
// sets (64 rows 1 KiB apart: 4 of 64, 16 rows in each).
std::int64_t busiest_set(const L1Geometry& l1, std::int64_t k, std::int64_t stride, int lines) {
  const std::int64_t sets = l1.sets;
  if (lines >= stride) {
    // The rows' lines run together: one range of (k - 1)·stride + lines, spread evenly.
    const std::int64_t total = (k - 1) * stride + lines;
    return (total + sets - 1) / sets;
  }
  // Row r begins in the set row r + starts begins in, and no two rows share a line.
  const std::int64_t starts = sets / std::gcd(stride, sets);
  std::vector<std::int64_t> per_set(std::size_t(sets), 0);
  for (std::int64_t r = 0; r < std::min(k, starts); ++r) {
    const std::int64_t rows = (k - 1 - r) / starts + 1, first = r * stride % sets;
    for (int l = 0; l < lines; ++l) per_set[std::size_t((first + l) % sets)] += rows;
  }
  return *std::max_element(per_set.begin(), per_set.end());
}

}  // namespace

const L1Geometry& l1_geometry() {
  static const L1Geometry geometry = detect();
  return geometry;
}

// Computed when a kernel is prepared, never per call: a few thousand additions.
int b_lines_in_l1(const L1Geometry& l1, std::int64_t k, std::int64_t stride_bytes) {
  if (k <= 0 || stride_bytes <= 0 || stride_bytes % 64 != 0 || l1.sets <= 0 || l1.ways <= 0) return 0;
  int fits = 0;
  // A set's lines only grow with the lines per row, so the first that do not fit end it.
  for (int lines = 1; lines <= kMaxL1Lines && busiest_set(l1, k, stride_bytes / 64, lines) <= l1.ways; ++lines) {
    fits = lines;
  }
  return fits;
}

}  // namespace gemmtune::cpu
