#include "wgmma_kernel_source.h"

#include <sstream>

namespace gemmtune::cuda {
namespace {

// The instruction's dtype suffix and k extent for an input code (32 bytes of k each).
struct InstructionKind {
  const char* types;  // ".f32.bf16.bf16" …
  int k;
  bool integer;
  bool has_scale_and_transpose;  // f16/bf16 take imm-scale-a/b and imm-trans-a/b; tf32 the scales only
  bool has_scale;
};

InstructionKind instruction_kind(int in_code) {
  switch (in_code) {
    case 0: return {".f32.f16.f16", 16, false, true, true};
    case 1: return {".f32.bf16.bf16", 16, false, true, true};
    case 2: return {".f32.tf32.tf32", 8, false, false, true};
    default: return {".s32.s8.s8", 32, true, false, false};
  }
}

}  // namespace

int wgmma_input_bytes(int in_code) { return in_code == 2 ? 4 : in_code == 3 ? 1 : 2; }

// One wgmma writes n/2 accumulators a thread; the inline assembly names each as an operand, so
// the prelude is written per instance rather than kept as one function per n in the template.
std::string wgmma_kernel_source(const WgmmaInstance& w, std::string_view template_text) {
  const InstructionKind kind = instruction_kind(w.in_code);
  const int accumulators = w.block_n / 2;
  std::ostringstream out;
  out << "// Prelude written by wgmma_kernel_source.cc for n = " << w.block_n << ".\n";
  out << "__device__ __forceinline__ void gt_wgmma_tile(" << (kind.integer ? "int" : "float") << " (&d)["
      << accumulators << "], unsigned long long da, unsigned long long db) {\n";
  out << "  asm volatile(\"{\\n.reg .pred p;\\nsetp.ne.b32 p, %" << accumulators + 2 << ", 0;\\n\"\n";
  out << "      \"wgmma.mma_async.sync.aligned.m64n" << w.block_n << "k" << kind.k << kind.types << " {";
  for (int i = 0; i < accumulators; ++i) out << (i ? ", " : "") << "%" << i;
  out << "}, %" << accumulators << ", %" << accumulators + 1 << ", p";
  if (kind.has_scale) out << ", 1, 1";
  if (kind.has_scale_and_transpose) out << ", " << (w.a_mn ? 1 : 0) << ", " << (w.b_mn ? 1 : 0);
  out << ";\\n}\\n\"\n      : ";
  for (int i = 0; i < accumulators; ++i) {
    out << (i ? ", " : "") << (kind.integer ? "\"+r\"(d[" : "\"+f\"(d[") << i << "])";
    if (i % 8 == 7 && i + 1 < accumulators) out << "\n        ";
  }
  out << "\n      : \"l\"(da), \"l\"(db), \"r\"(1));\n}\n\n";
  out << template_text;
  return out.str();
}

std::vector<std::string> wgmma_kernel_options(const WgmmaInstance& w, const std::string& arch) {
  auto define = [](const char* name, long long value) { return std::string("-D") + name + "=" + std::to_string(value); };
  return {
      "--gpu-architecture=" + arch,
      "-std=c++17",
      "-default-device",
      define("GT_IN", w.in_code),
      define("GT_OUT", w.out_code),
      define("GT_A_MN", w.a_mn),
      define("GT_B_MN", w.b_mn),
      define("GT_C_TRANSPOSED", w.c_transposed),
      define("GT_BM", w.block_m),
      define("GT_BN", w.block_n),
      define("GT_STAGES", w.stages),
      define("GT_CONSUMERS", w.consumers),
      define("GT_PINGPONG", w.pingpong),
      define("GT_CLUSTER_M", w.cluster_m),
      define("GT_CLUSTER_N", w.cluster_n),
      define("GT_GROUP_M", w.group_m),
      define("GT_WGMMA_DEPTH", w.wgmma_depth),
      define("GT_SPLIT_K", w.split_k),
      define("GT_SPLIT_CLUSTER", w.split_cluster),
      define("GT_STREAM_K", w.stream_k),
      define("GT_C_TMA", w.c_tma),
  };
}

}  // namespace gemmtune::cuda
