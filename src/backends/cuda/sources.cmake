# Sources of the CUDA backends: device detection, harness, cuBLASLt and NVRTC (opened on first
# use), worker isolation.
set(GEMMTUNE_CUDA_SOURCES
  backends/cuda/cuda_device.cc
  backends/cuda/cuda_harness.cc
  backends/cuda/cuda_call_timer.cc
  backends/cuda/cuda_verifier.cc
  backends/cuda/launch_overlap.cc
  backends/cuda/cublaslt_backend.cc
  backends/cuda/cublaslt_plan.cc
  backends/cuda/cublaslt_library.cc
  backends/cuda/nvrtc_library.cc
  backends/cuda/toolkit_library.cc
  backends/cuda/worker_client.cc
  backends/cuda/worker_protocol.cc)
