# Sources of the NVRTC template backends: "mma" (mma.sync, any GPU from sm_80), "wgmma"
# (Hopper) and "skinny" (m <= 64: gemm_skinny.cuh, and gemm_gemv.cuh for m <= 8). Each kernel
# template is a CUDA C++ file in the tree, embedded into the library as a string at build time;
# it is regenerated whenever the .cuh changes.
# gemmtune_embed_kernel(NAME [INCLUDED...]): kernels/NAME.cuh as generated/NAME_source.cc, defining
# NAME_source(); INCLUDED are the files of kernels/ it includes, which the embedding inlines.
function(gemmtune_embed_kernel name)
  set(kernels ${CMAKE_CURRENT_SOURCE_DIR}/backends/cuda/kernels)
  set(cuh ${kernels}/${name}.cuh)
  set(cc ${CMAKE_CURRENT_BINARY_DIR}/generated/${name}_source.cc)
  list(TRANSFORM ARGN PREPEND ${kernels}/ OUTPUT_VARIABLE included)
  add_custom_command(
    OUTPUT ${cc}
    COMMAND ${CMAKE_COMMAND} -DINPUT=${cuh} -DOUTPUT=${cc} -DSYMBOL=${name}_source
            -P ${kernels}/embed_source.cmake
    DEPENDS ${cuh} ${included} ${kernels}/embed_source.cmake
    COMMENT "Embedding ${name}.cuh"
    VERBATIM)
endfunction()
gemmtune_embed_kernel(gemm_mma)
gemmtune_embed_kernel(gemm_wgmma wgmma_stream_k.cuh)
gemmtune_embed_kernel(gemm_skinny)
gemmtune_embed_kernel(gemm_gemv)
gemmtune_embed_kernel(verify)
gemmtune_embed_kernel(pad_copy)
# Not NVRTC: nvcc builds gemm_cutlass.cuh into a shared object at tuning time (cutlass_compiler.cc).
gemmtune_embed_kernel(gemm_cutlass cutlass_abi.h)

set(GEMMTUNE_CUDA_NVRTC_SOURCES
  backends/cuda/cuda_module.cc
  backends/cuda/mma_backend.cc
  backends/cuda/mma_config_space.cc
  backends/cuda/nvrtc_compiler.cc
  backends/cuda/cubin_cache.cc
  backends/cuda/wgmma_backend.cc
  backends/cuda/wgmma_config_space.cc
  backends/cuda/wgmma_config_checks.cc
  backends/cuda/wgmma_kernel_source.cc
  backends/cuda/wgmma_tensor_map.cc
  backends/cuda/padded_operand.cc
  backends/cuda/pad_copy_kernel.cc
  backends/cuda/operand_relocation.cc
  backends/cuda/skinny_backend.cc
  backends/cuda/skinny_config_space.cc
  backends/cuda/skinny_gemv.cc
  backends/cuda/cutlass_backend.cc
  backends/cuda/cutlass_compiler.cc
  backends/cuda/cutlass_config_space.cc
  ${CMAKE_CURRENT_BINARY_DIR}/generated/gemm_mma_source.cc
  ${CMAKE_CURRENT_BINARY_DIR}/generated/gemm_wgmma_source.cc
  ${CMAKE_CURRENT_BINARY_DIR}/generated/gemm_skinny_source.cc
  ${CMAKE_CURRENT_BINARY_DIR}/generated/gemm_gemv_source.cc
  ${CMAKE_CURRENT_BINARY_DIR}/generated/verify_source.cc
  ${CMAKE_CURRENT_BINARY_DIR}/generated/pad_copy_source.cc
  ${CMAKE_CURRENT_BINARY_DIR}/generated/gemm_cutlass_source.cc)
