// Backend "amx": gemmtune's own AMX kernel (amx_kernels.h) for bf16 (into f32 or bf16) and
// s8·s8 → s32, on CPUs with AMX (Intel Sapphire Rapids and later) where Linux grants the tile
// state. Elsewhere it offers no configs and says why. This file is compiled without ISA flags:
// it detects AMX before anything of amx_kernels.cc runs.
#include <cpuid.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

#include "amx_kernels.h"
#include "cpu_backends.h"
#include "cpu_config_space.h"
#include "cpu_kernels.h"

#ifndef GEMMTUNE_AMX_KERNELS_HASH
#define GEMMTUNE_AMX_KERNELS_HASH "unversioned"
#endif

namespace gemmtune::cpu {

const std::string& amx_unavailable_reason() {
  static const std::string reason = []() -> std::string {
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    if (__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) == 0) return "the CPU reports no AMX (no cpuid leaf 7)";
    const bool tile = (edx >> 24) & 1u, bf16 = (edx >> 22) & 1u, int8 = (edx >> 25) & 1u;
    if (!tile || !bf16 || !int8) return "the CPU has no AMX (AMX-TILE, AMX-BF16 and AMX-INT8)";
    // Linux 5.16 and later hand the tile data state (XFEATURE 18) only to a process that asks.
    constexpr long kArchReqXcompPerm = 0x1023, kXfeatureXtileData = 18;
    if (syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtileData) != 0) {
      return std::string("Linux did not grant the AMX tile state (arch_prctl ARCH_REQ_XCOMP_PERM: ") +
             std::strerror(errno) + ")";
    }
    return "";
  }();
  return reason;
}

namespace {

class AmxKernel final : public Kernel {
 public:
  explicit AmxKernel(const AmxGemmParams& params) : params_(params) {}
  Status run(const GemmArgs& args) override {
    amx_gemm(params_, args.a, args.b, args.c);
    return Status::ok();
  }

 private:
  AmxGemmParams params_;
};

bool takes_dtypes(const Problem& p) {
  if (p.a_type() != p.b_type()) return false;
  if (p.a_type() == DType::bf16) return p.c_type() == DType::f32 || p.c_type() == DType::bf16;
  return p.a_type() == DType::s8 && p.c_type() == DType::s32;
}

// Which operand the tile loads read in place: R's rows must run along k, element by element
// (cpu_strides makes a stride 1 where k is 1 and it is never stepped along).
bool a_along_k(const Problem& p) { return cpu_strides(p).a_ks == 1; }
bool b_along_k(const Problem& p) { return cpu_strides(p).b_ks == 1; }

constexpr std::int64_t kMinThreadedMacs = std::int64_t(1) << 18;
// Where a block of R's rows serves at least this many of P's columns (two column tiles of 32),
// the default space offers R copied onto its lines (copy=1) beside R read in place; where it
// serves one, copying it costs a second pass over R for nothing back. Neither wins everywhere
// (two threads of the Granite Rapids VM, R 16 bytes past a line, copied against in place): at
// 256³ bf16 36.4 µs against 30.7, s8 27.9 against 25.8; at 512³ bf16 156 against 190, s8 107
// against 101; at 1024³ bf16 1396 against 1708, s8 663 against 849; at 2048³ bf16 11.6 ms
// against 15.1; at 256 × 4096 × 4096 nt 5.87 against 7.97; at 16 × 4096 × 4096 nt (one column
// tile) copied read 0.96 of oneDNN where in place had read 1.23. So the tuner chooses.
constexpr std::int64_t kMinCopiedColumns = 64;

class AmxBackend final : public Backend {
 public:
  explicit AmxBackend(const CpuInfo& cpu) : cpu_(cpu) {}
  std::string_view name() const override { return "amx"; }
  // A hash of amx_kernels.{h,cc} and their flags, computed by CMake.
  std::string version() const override { return GEMMTUNE_AMX_KERNELS_HASH; }

  // Per orientation the operands allow (A's rows along k: C = A·B; B's columns along k: swap),
  // 2 × 2 tiles (fewer where R's rows or P's columns take one tile), P packed 128 or 256
  // columns at a time, 1 KB of each row of k kept in L1 (the exhaustive space adds half and
  // twice that), on every core (and on one below kMinThreadedMacs), R read in place and, where
  // a block of its rows serves kMinCopiedColumns of P or more, copied onto its lines too. At
  // most 8 configs (48 exhaustive): no cost model ranks this backend, so `--fast` times all.
  std::vector<KernelConfig> configs(const Problem& p, SearchSpace space) const override {
    std::vector<KernelConfig> out;
    if (!usable(p).is_ok()) return out;
    const std::int64_t step = amx_k_step(p.a_type()), k_rounded = (p.k() + step - 1) / step * step;
    const std::int64_t base_k = 1024 / std::int64_t(dtype_size(p.a_type()));  // 1 KB of each row
    std::vector<std::int64_t> depths = {base_k};
    if (space == SearchSpace::exhaustive) depths = {base_k / 2, base_k, base_k * 2};
    std::vector<int> threads = {std::max(1, cpu_.logical_cores)};
    const std::int64_t macs = p.m() * p.n() * p.k();
    if (threads[0] > 1 && macs < kMinThreadedMacs * threads[0]) threads.push_back(1);
    for (int swap : {0, 1}) {
      if (swap == 0 ? !a_along_k(p) : !b_along_k(p)) continue;
      const std::int64_t rows = swap ? p.n() : p.m(), cols = swap ? p.m() : p.n();
      const std::int64_t cols_rounded = (cols + 15) / 16 * 16;
      for (std::int64_t block_n : {128, 256}) {
        const std::int64_t bn = std::min(block_n, cols_rounded);
        // A product below kMinThreadedMacs (where one thread is offered too) is too small for a
        // copy to pay.
        const bool copy_pays = std::min(bn, cols) >= kMinCopiedColumns && threads.size() == 1;
        std::vector<int> copies = {0};
        if (copy_pays || space == SearchSpace::exhaustive) copies.push_back(1);
        for (std::int64_t depth : depths) {
          const std::int64_t bk = std::min(depth, k_rounded);
          for (int t : threads) {
            for (int copy : copies) {
              KernelConfig c;
              c.micro_m = rows > 16 ? 32 : 16;
              c.micro_n = cols > 16 ? 32 : 16;
              c.block_n = std::int32_t(bn);
              c.block_k = std::int32_t(bk);
              c.threads = t;
              c.swap_ab = swap;
              c.copy_r = copy;
              if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
            }
          }
        }
      }
    }
    return out;
  }

  Status can_implement(const Problem& p, const KernelConfig& c) const override {
    GEMMTUNE_RETURN_IF_ERROR(usable(p));
    if (c.swap_ab != 0 && c.swap_ab != 1) return unsupported("swap must be 0 or 1");
    if (c.copy_r != 0 && c.copy_r != 1) return unsupported("copy must be 0 or 1");
    // The tiles read one operand in place along k: A's rows (swap=0) or B's columns (swap=1).
    const bool a_k = a_along_k(p), b_k = b_along_k(p);
    const std::string other = a_k || b_k ? std::string(": swap=") + (a_k ? "0" : "1") + " reads " + (a_k ? "A" : "B") +
                                               " in place instead"
                                         : std::string(", and neither operand does: no config takes this layout");
    if (c.swap_ab == 0 && !a_k) return unsupported("A's rows do not run along k (layout " + p.layout_letters() + ")" + other);
    if (c.swap_ab == 1 && !b_k) return unsupported("B's columns do not run along k (layout " + p.layout_letters() + ")" + other);
    if ((c.micro_m != 16 && c.micro_m != 32) || (c.micro_n != 16 && c.micro_n != 32)) {
      return unsupported("tiles are 16 or 32 rows and columns (mm, mn)");
    }
    const std::int64_t step = amx_k_step(p.a_type());
    if (c.block_k < step || c.block_k % step != 0) {
      return unsupported("bk must be a multiple of " + std::to_string(step) + " (64 bytes of k)");
    }
    if (c.block_n < 16 || c.block_n % 16 != 0) return unsupported("bn must be a multiple of 16");
    if (c.threads < 1 || c.threads > 1024) return unsupported("threads must be in [1, 1024]");
    return Status::ok();
  }

  Result<std::unique_ptr<Kernel>> prepare(const Problem& p, const KernelConfig& c) const override {
    GEMMTUNE_RETURN_IF_ERROR(can_implement(p, c));
    const CpuGemmParams strides = cpu_strides(p);
    AmxGemmParams params;
    params.m = p.m(), params.n = p.n(), params.k = p.k();
    params.a_rs = strides.a_rs, params.a_ks = strides.a_ks;
    params.b_ks = strides.b_ks, params.b_cs = strides.b_cs;
    params.ldc = strides.ldc;
    params.alpha = p.alpha(), params.beta = p.beta();
    params.in = p.a_type(), params.out = p.c_type();
    params.row_tiles = c.micro_m / 16, params.col_tiles = c.micro_n / 16;
    params.block_n = c.block_n, params.block_k = c.block_k;
    params.swap = c.swap_ab == 1;
    params.copy_r = c.copy_r == 1;
    params.threads = c.threads;
    return std::unique_ptr<Kernel>(std::make_unique<AmxKernel>(params));
  }

 private:
  // AMX on this CPU, not capped below AVX512_BF16 (GEMMTUNE_CPU_ISA caps this family too),
  // and the problem's dtypes.
  Status usable(const Problem& p) const {
    if (const std::string& why = amx_unavailable_reason(); !why.empty()) return unsupported(why);
    if (!cpu_.avx512_bf16) return unsupported("AMX is off: GEMMTUNE_CPU_ISA caps this CPU below avx512_bf16");
    if (!takes_dtypes(p)) {
      return unsupported("AMX takes bf16 into f32 or bf16, and s8 into s32; not " + std::string(dtype_name(p.a_type())) +
                         " into " + std::string(dtype_name(p.c_type())));
    }
    return Status::ok();
  }

  CpuInfo cpu_;
};

}  // namespace

std::unique_ptr<Backend> make_amx_backend(const CpuInfo& cpu) { return std::make_unique<AmxBackend>(cpu); }

std::string amx_availability_note() {
  const std::string& why = amx_unavailable_reason();
  return "gemmtune's own AMX kernels (bf16, s8); " + (why.empty() ? std::string("this CPU runs them") : "off here: " + why);
}

}  // namespace gemmtune::cpu
