# Sources of the NVRTC template backends: "cuda" (mma.sync, any GPU from sm_80) and "wgmma"
# (Hopper). Each kernel template is a CUDA C++ file in the tree, embedded into the library as a
# string at build time; it is regenerated whenever the .cuh changes.
set(GEMMTUNE_GEMM_MMA_CUH ${CMAKE_CURRENT_SOURCE_DIR}/backends/cuda/kernels/gemm_mma.cuh)
set(GEMMTUNE_GEMM_MMA_CC ${CMAKE_CURRENT_BINARY_DIR}/generated/gemm_mma_source.cc)
add_custom_command(
  OUTPUT ${GEMMTUNE_GEMM_MMA_CC}
  COMMAND ${CMAKE_COMMAND} -DINPUT=${GEMMTUNE_GEMM_MMA_CUH} -DOUTPUT=${GEMMTUNE_GEMM_MMA_CC}
          -DSYMBOL=gemm_mma_source -P ${CMAKE_CURRENT_SOURCE_DIR}/backends/cuda/kernels/embed_source.cmake
  DEPENDS ${GEMMTUNE_GEMM_MMA_CUH} ${CMAKE_CURRENT_SOURCE_DIR}/backends/cuda/kernels/embed_source.cmake
  COMMENT "Embedding gemm_mma.cuh"
  VERBATIM)

set(GEMMTUNE_GEMM_WGMMA_CUH ${CMAKE_CURRENT_SOURCE_DIR}/backends/cuda/kernels/gemm_wgmma.cuh)
set(GEMMTUNE_GEMM_WGMMA_CC ${CMAKE_CURRENT_BINARY_DIR}/generated/gemm_wgmma_source.cc)
add_custom_command(
  OUTPUT ${GEMMTUNE_GEMM_WGMMA_CC}
  COMMAND ${CMAKE_COMMAND} -DINPUT=${GEMMTUNE_GEMM_WGMMA_CUH} -DOUTPUT=${GEMMTUNE_GEMM_WGMMA_CC}
          -DSYMBOL=gemm_wgmma_source -P ${CMAKE_CURRENT_SOURCE_DIR}/backends/cuda/kernels/embed_source.cmake
  DEPENDS ${GEMMTUNE_GEMM_WGMMA_CUH} ${CMAKE_CURRENT_SOURCE_DIR}/backends/cuda/kernels/embed_source.cmake
  COMMENT "Embedding gemm_wgmma.cuh"
  VERBATIM)

set(GEMMTUNE_CUDA_NVRTC_SOURCES
  backends/cuda/cuda_module.cc
  backends/cuda/nvrtc_backend.cc
  backends/cuda/nvrtc_config_space.cc
  backends/cuda/nvrtc_compiler.cc
  backends/cuda/cubin_cache.cc
  backends/cuda/wgmma_backend.cc
  backends/cuda/wgmma_config_space.cc
  backends/cuda/wgmma_kernel_source.cc
  backends/cuda/wgmma_tensor_map.cc
  ${GEMMTUNE_GEMM_MMA_CC}
  ${GEMMTUNE_GEMM_WGMMA_CC})
