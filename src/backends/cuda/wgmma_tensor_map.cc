#include "wgmma_tensor_map.h"

#include <algorithm>

#include <cuda_runtime_api.h>

#include "wgmma_kernel_source.h"
#include "wgmma_limits.h"

namespace gemmtune::cuda {
namespace {

// TMA's limits (CUDA driver API, cuTensorMapEncodeTiled): global addresses and strides in
// multiples of 16 bytes, strides below 2^40 bytes, dims at most 2^32 elements.
constexpr std::int64_t kTmaAlignment = 16;
constexpr std::int64_t kMaxStrideBytes = std::int64_t(1) << 40;
constexpr std::int64_t kMaxDim = std::int64_t(1) << 32;

using EncodeTiled = decltype(&::cuTensorMapEncodeTiled);

// Resolved through the runtime, as the other driver calls of the CUDA backends are, so that
// nothing links libcuda.
EncodeTiled encode_tiled() {
  static const EncodeTiled fn = [] {
    void* address = nullptr;
    cudaDriverEntryPointQueryResult found{};
    // 12000: the ABI version of cuTensorMapEncodeTiled (unchanged since CUDA 12.0).
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &address, 12000, cudaEnableDefault, &found) !=
            cudaSuccess ||
        found != cudaDriverEntryPointSuccess) {
      return EncodeTiled(nullptr);
    }
    return reinterpret_cast<EncodeTiled>(address);
  }();
  return fn;
}

CUtensorMapDataType data_type(int in_code) {
  switch (in_code) {
    case 0: return CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
    case 1: return CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
    case 2: return CU_TENSOR_MAP_DATA_TYPE_FLOAT32;  // read as TF32 by wgmma
    default: return CU_TENSOR_MAP_DATA_TYPE_UINT8;    // s8 bits; TMA only moves them
  }
}

}  // namespace

std::string wgmma_operand_problem(const WgmmaOperand& o) {
  const std::int64_t bytes = wgmma_input_bytes(o.in_code);
  const std::int64_t stride = o.ld * bytes;
  if (stride % kTmaAlignment != 0) {
    return "its leading dimension (" + std::to_string(o.ld) + " elements, " + std::to_string(stride) +
           " bytes) is not a multiple of the 16 bytes TMA needs";
  }
  if (stride >= kMaxStrideBytes) return "its leading dimension is past TMA's 2^40-byte stride limit";
  if (o.rows > kMaxDim || o.k > kMaxDim) return "a dim is past TMA's 2^32-element limit";
  if (reinterpret_cast<std::uintptr_t>(o.data) % kTmaAlignment != 0) {
    return "its address is not 16-byte aligned, which TMA needs";
  }
  return "";
}

std::string encode_wgmma_operand_map(const WgmmaOperand& o, CUtensorMap* map) {
  if (o.caller_ld != 0) {
    return "its rows are read from a padded copy (leading dimension " + std::to_string(o.ld) +
           "), and the map was asked of the caller's (" + std::to_string(o.caller_ld) + ")";
  }
  std::string problem = wgmma_operand_problem(o);
  if (!problem.empty()) return problem;
  const EncodeTiled encode = encode_tiled();
  if (encode == nullptr) return "the CUDA driver lacks cuTensorMapEncodeTiled";
  const std::int64_t bytes = wgmma_input_bytes(o.in_code);
  const cuuint32_t k_box = cuuint32_t(128 / bytes);  // one 128-byte swizzle row of k
  // A dim of 0 (k = 0: nothing is loaded) still needs a valid map.
  const cuuint64_t rows = cuuint64_t(std::max<std::int64_t>(o.rows, 1));
  const cuuint64_t k = cuuint64_t(std::max<std::int64_t>(o.k, 1));
  const cuuint64_t dims[2] = {o.mn_major ? rows : k, o.mn_major ? k : rows};
  const cuuint64_t strides[1] = {cuuint64_t(o.ld * bytes)};
  const cuuint32_t box[2] = {o.mn_major ? cuuint32_t(wgmma_template::kMnChunk) : k_box,
                             o.mn_major ? k_box : cuuint32_t(o.tile_rows)};
  const cuuint32_t element_strides[2] = {1, 1};
  const CUresult result =
      encode(map, data_type(o.in_code), 2, const_cast<void*>(o.data), dims, strides, box, element_strides,
             CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
             CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (result != CUDA_SUCCESS) return "cuTensorMapEncodeTiled failed (CUresult " + std::to_string(int(result)) + ")";
  return "";
}

std::string wgmma_output_map_limits(int out_code, std::int64_t m, std::int64_t n, std::int64_t ld) {
  const std::int64_t bytes = out_code == 1 || out_code == 2 ? 2 : 4;
  if ((ld * bytes) % kTmaAlignment != 0) return "C's leading dimension is not a multiple of 16 bytes";
  if (m > kMaxDim || n > kMaxDim || ld * bytes >= kMaxStrideBytes) return "C is past TMA's limits";
  return "";
}

std::string encode_wgmma_output_maps(void* data, int out_code, std::int64_t m, std::int64_t n, std::int64_t ld,
                                     int block_n, CUtensorMap* chunks, CUtensorMap* tail) {
  const std::int64_t bytes = out_code == 1 || out_code == 2 ? 2 : 4;
  if (std::string why = wgmma_output_map_limits(out_code, m, n, ld); !why.empty()) return why;
  if (reinterpret_cast<std::uintptr_t>(data) % kTmaAlignment != 0) return "C is not 16-byte aligned";
  const EncodeTiled encode = encode_tiled();
  if (encode == nullptr) return "the CUDA driver lacks cuTensorMapEncodeTiled";
  const CUtensorMapDataType type = out_code == 0   ? CU_TENSOR_MAP_DATA_TYPE_FLOAT32
                                   : out_code == 1 ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16
                                   : out_code == 2 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
                                                   : CU_TENSOR_MAP_DATA_TYPE_INT32;
  const cuuint64_t dims[2] = {cuuint64_t(std::max<std::int64_t>(n, 1)), cuuint64_t(std::max<std::int64_t>(m, 1))};
  const cuuint64_t strides[1] = {cuuint64_t(ld * bytes)};
  const cuuint32_t element_strides[2] = {1, 1};
  const auto encode_box = [&](cuuint32_t columns, CUtensorMapSwizzle swizzle, CUtensorMap* map) {
    const cuuint32_t box[2] = {columns, 64};
    return encode(map, type, 2, data, dims, strides, box, element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle,
                  CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  };
  const auto failed = [](const char* what, CUresult result) {
    return std::string("cuTensorMapEncodeTiled(") + what + ") failed (CUresult " + std::to_string(int(result)) + ")";
  };
  const cuuint32_t chunk_columns = cuuint32_t(128 / bytes);
  if (const CUresult r = encode_box(chunk_columns, CU_TENSOR_MAP_SWIZZLE_128B, chunks); r != CUDA_SUCCESS) {
    return failed("C", r);
  }
  // The tail's rows are a multiple of 16 bytes, as an unswizzled box needs: block_n is a
  // multiple of 8 (wgmma's n step).
  const cuuint32_t tail_columns = cuuint32_t(block_n) % chunk_columns;
  if (tail_columns == 0) {
    *tail = *chunks;
  } else if (const CUresult r = encode_box(tail_columns, CU_TENSOR_MAP_SWIZZLE_NONE, tail); r != CUDA_SUCCESS) {
    return failed("C's tail columns", r);
  }
  return "";
}

}  // namespace gemmtune::cuda
