# Sources of the NVRTC template backend ("cuda").
set(GEMMTUNE_CUDA_NVRTC_SOURCES
  backends/cuda/nvrtc_backend.cc)
