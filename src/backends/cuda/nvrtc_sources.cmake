# Sources of the NVRTC template backend ("cuda"). The kernel template is a CUDA C++ file in the
# tree, embedded into the library as a string at build time; it is regenerated whenever the
# .cuh changes.
set(GEMMTUNE_GEMM_MMA_CUH ${CMAKE_CURRENT_SOURCE_DIR}/backends/cuda/kernels/gemm_mma.cuh)
set(GEMMTUNE_GEMM_MMA_CC ${CMAKE_CURRENT_BINARY_DIR}/generated/gemm_mma_source.cc)
add_custom_command(
  OUTPUT ${GEMMTUNE_GEMM_MMA_CC}
  COMMAND ${CMAKE_COMMAND} -DINPUT=${GEMMTUNE_GEMM_MMA_CUH} -DOUTPUT=${GEMMTUNE_GEMM_MMA_CC}
          -DSYMBOL=gemm_mma_source -P ${CMAKE_CURRENT_SOURCE_DIR}/backends/cuda/kernels/embed_source.cmake
  DEPENDS ${GEMMTUNE_GEMM_MMA_CUH} ${CMAKE_CURRENT_SOURCE_DIR}/backends/cuda/kernels/embed_source.cmake
  COMMENT "Embedding gemm_mma.cuh"
  VERBATIM)

set(GEMMTUNE_CUDA_NVRTC_SOURCES
  backends/cuda/nvrtc_backend.cc
  backends/cuda/nvrtc_config_space.cc
  backends/cuda/nvrtc_compiler.cc
  backends/cuda/cubin_cache.cc
  ${GEMMTUNE_GEMM_MMA_CC})
