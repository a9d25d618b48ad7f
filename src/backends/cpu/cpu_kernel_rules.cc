// What each CPU kernel family can run: the rules of the rows of cpu_kernel_families.h, which
// the backend's can_implement and the config space apply. Outside the kernels' hash: a rule
// decides which configs are timed, not any kernel's code.
#include <string>

#include "cpu_kernel_families.h"

namespace gemmtune::cpu {
namespace {

// The register tile's dims are positive and, where they count columns (or, for the columns
// kernel, rows) of C in vectors, whole vectors.
std::string tile_in_vectors(const KernelConfig& c, int lanes, int vector_dim) {
  if (c.micro_m > 0 && c.micro_n > 0 && (vector_dim <= 0 || vector_dim % lanes == 0)) return "";
  return "register tile " + std::to_string(c.micro_m) + "x" + std::to_string(c.micro_n) + " is not whole vectors of " +
         std::to_string(lanes) + " lanes";
}

// The dot, axpy and pairs tiles count columns of C and rows of B, not vectors.
constexpr int kNoVectorDim = 0;

std::string reads_b_rows(const char* kernel, const CpuGemmParams& s) {
  if (s.b_cs == 1) return "";
  return "the direct " + std::string(kernel) + " kernel reads B contiguous along n (row-major)";
}

}  // namespace

std::string packed_cannot_run(const Problem&, const CpuGemmParams&, const KernelConfig& c, int lanes) {
  std::string why = tile_in_vectors(c, lanes, c.micro_n);
  if (why.empty() && (c.block_m <= 0 || c.block_m % c.micro_m != 0 || c.block_n <= 0 || c.block_n % c.micro_n != 0 ||
                      c.block_k <= 0)) {
    why = "blocks must be positive multiples of the register tile";
  }
  return why;
}

// The tile and pairs kernels hold all of C in one register tile; the pairs kernel's is half a
// vector wide and also reads A's adjacent pairs along k.
std::string tile_cannot_run(const Problem& p, const CpuGemmParams& s, const KernelConfig& c, int lanes) {
  if (s.b_cs != 1 || p.m() != c.micro_m || p.n() <= 0 || p.n() > c.micro_n || c.threads != 1) {
    return "the direct tile kernel holds all of C (m = mm rows, n <= mn columns, B row-major) on one thread";
  }
  return tile_in_vectors(c, lanes, c.micro_n);
}

std::string pairs_cannot_run(const Problem& p, const CpuGemmParams& s, const KernelConfig& c, int lanes) {
  if (s.b_cs != 1 || s.a_ks != 1 || p.m() != c.micro_m || p.n() <= 0 || p.n() > c.micro_n || c.micro_n * 2 != lanes ||
      c.threads != 1) {
    return "the direct pairs kernel holds all of C (m = mm rows, n <= mn = half a vector's lanes, A and B row-major) "
           "on one thread";
  }
  return tile_in_vectors(c, lanes, kNoVectorDim);
}

std::string rows_cannot_run(const Problem&, const CpuGemmParams& s, const KernelConfig& c, int lanes) {
  const std::string why = reads_b_rows("rows", s);
  return why.empty() ? tile_in_vectors(c, lanes, c.micro_n) : why;
}

// C a few columns past whole vectors: the rows tiles, with dots for the last columns.
std::string rows_dots_cannot_run(const Problem& p, const CpuGemmParams& s, const KernelConfig& c, int lanes) {
  if (s.b_cs != 1 || s.a_ks != 1 || p.n() < lanes || p.n() % lanes > max_dots_tail(lanes)) {
    return "the direct rows-dots kernel reads A and B row-major and takes C of whole vectors and at most " +
           std::to_string(max_dots_tail(lanes)) + " columns more";
  }
  return tile_in_vectors(c, lanes, c.micro_n);
}

std::string stream_cannot_run(const Problem&, const CpuGemmParams& s, const KernelConfig& c, int lanes) {
  std::string why = reads_b_rows("stream", s);
  if (why.empty() && c.block_k < 1) why = "the direct stream kernel reads B bk rows at a time: bk must be at least 1";
  return why.empty() ? tile_in_vectors(c, lanes, c.micro_n) : why;
}

std::string axpy_cannot_run(const Problem&, const CpuGemmParams& s, const KernelConfig& c, int lanes) {
  const std::string why = reads_b_rows("axpy", s);
  return why.empty() ? tile_in_vectors(c, lanes, kNoVectorDim) : why;
}

std::string dot_cannot_run(const Problem&, const CpuGemmParams& s, const KernelConfig& c, int lanes) {
  if (s.a_ks != 1 || s.b_ks != 1) {
    return "the direct dot kernel reads A and B contiguous along k (A row-major, B column-major)";
  }
  return tile_in_vectors(c, lanes, kNoVectorDim);
}

// The columns tile holds vectors of C's rows (the tile of Cᵀ).
std::string columns_cannot_run(const Problem&, const CpuGemmParams& s, const KernelConfig& c, int lanes) {
  if (s.b_ks != 1) return "the direct columns kernel reads B contiguous along k (column-major)";
  return tile_in_vectors(c, lanes, c.micro_m);
}

}  // namespace gemmtune::cpu
