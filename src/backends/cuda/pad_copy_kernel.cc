#include "pad_copy_kernel.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include "cubin_cache.h"
#include "cuda_module.h"
#include "nvrtc_compiler.h"

namespace gemmtune::cuda {

std::vector<std::string> pad_copy_options(const CudaInfo& device) {
  return {"--gpu-architecture=" + device.arch(), "-std=c++17", "-default-device"};
}

std::string pad_copy_version() {
  static const std::string version = "pad_copy-" + to_hex(sha256(pad_copy_source())).substr(0, 16);
  return version;
}

Result<CUfunction> pad_copy_function(const CudaInfo& device) {
  static std::mutex mutex;
  // Never destroyed: unloading at exit could follow the driver's own teardown.
  static auto* loaded = new std::map<int, std::pair<CudaModule*, CUfunction>>();
  std::lock_guard<std::mutex> lock(mutex);
  if (auto it = loaded->find(device.index); it != loaded->end()) return it->second.second;
  // The module from a cubin, or null where the driver will not load it.
  const auto loaded_from = [&](const CubinArtifact& artifact) -> std::unique_ptr<CudaModule> {
    auto module = std::make_unique<CudaModule>();
    return module->load(device.index, artifact.cubin).is_ok() ? std::move(module) : nullptr;
  };
  GEMMTUNE_ASSIGN_OR_RETURN(CubinArtifact artifact, obtain_cubin(pad_copy_source(), pad_copy_options(device)));
  std::unique_ptr<CudaModule> module = loaded_from(artifact);
  if (module == nullptr) {
    // A cached cubin the driver will not load is dropped and compiled again, once.
    forget_cubin(artifact.key);
    GEMMTUNE_ASSIGN_OR_RETURN(artifact, obtain_cubin(pad_copy_source(), pad_copy_options(device), /*recompile=*/true));
    module = loaded_from(artifact);
    if (module == nullptr) {
      return Status(ErrorCode::unavailable,
                    "the pad-copy kernel's cubin does not load on device " + std::to_string(device.index));
    }
  }
  GEMMTUNE_ASSIGN_OR_RETURN(CUfunction function, module->function("gemmtune_pad_copy"));
  loaded->emplace(device.index, std::pair{module.release(), function});
  return function;
}

SerializedScratch& padded_copies_buffer(int device) {
  static std::mutex mutex;
  // Never destroyed: freeing at exit could follow the driver's own teardown.
  static auto* buffers = new std::map<int, SerializedScratch*>();
  std::lock_guard<std::mutex> lock(mutex);
  SerializedScratch*& buffer = (*buffers)[device];
  if (buffer == nullptr) buffer = new SerializedScratch();
  return *buffer;
}

int pad_copy_chunk_bytes(const PaddedCopyShape& shape, const void* caller, const void* copy) {
  const auto divides = [](std::int64_t chunk, std::int64_t value) { return value % chunk == 0; };
  const auto address = std::int64_t(reinterpret_cast<std::uintptr_t>(caller) % 16);
  int narrow = 1;
  for (int chunk : {8, 4, 2}) {
    if (divides(chunk, shape.caller_pitch) && divides(chunk, shape.line_bytes) && divides(chunk, address)) {
      narrow = chunk;
      break;
    }
  }
  // Where 8-byte chunks serve, short lines run them faster than shifted ones: tn m = 100 in bf16
  // (lines of 200 bytes) copied in 4.1 us by 8 bytes and 5.5 by 16 on the H200.
  const bool copy_on_16 = divides(16, shape.copy_pitch) && reinterpret_cast<std::uintptr_t>(copy) % 16 == 0;
  const bool source_on_16 = divides(16, shape.caller_pitch) && address == 0;
  return copy_on_16 && (narrow < 8 || source_on_16) ? 16 : narrow;
}

Status enqueue_pad_copy(CUfunction function, const PaddedCopyShape& shape, const void* caller, void* copy,
                        void* stream, int sm_count) {
  if (shape.lines == 0 || shape.line_bytes == 0) return Status::ok();
  int chunk = pad_copy_chunk_bytes(shape, caller, copy);
  const char* src = static_cast<const char*>(caller);
  char* dst = static_cast<char*>(copy);
  long long src_pitch = shape.caller_pitch, dst_pitch = shape.copy_pitch;
  unsigned line_bytes = unsigned(shape.line_bytes), lines = unsigned(shape.lines);
  void* params[] = {&src, &src_pitch, &dst, &dst_pitch, &line_bytes, &lines, &chunk};
  // A grid-stride loop: enough blocks to fill the SMs a few times over, no more.
  constexpr unsigned kThreads = 256;
  const std::int64_t chunks = shape.lines * ((shape.line_bytes + chunk - 1) / chunk);
  const auto blocks = unsigned(std::clamp<std::int64_t>((chunks + kThreads - 1) / kThreads, 1, std::int64_t(sm_count) * 16));
  return enqueue_launch(function, blocks, 1, kThreads, 0, static_cast<CUstream>(stream), params, /*overlapped=*/false,
                        "cuLaunchKernelEx(gemmtune_pad_copy)");
}

void OperandCopies::add(std::size_t i, const PaddedCopyShape& shape) {
  copies_[i] = Copy{bytes_, shape};
  bytes_ += std::size_t((shape.lines * shape.copy_pitch + 255) / 256 * 256);
}

Status OperandCopies::enqueue(CUfunction function, std::array<const void*, 2>& operands, void* buffer, void* stream,
                              int sm_count) const {
  for (std::size_t i = 0; i < 2; ++i) {
    if (!copies_[i]) continue;
    void* copy = at(buffer, i);
    GEMMTUNE_RETURN_IF_ERROR(enqueue_pad_copy(function, copies_[i]->shape, operands[i], copy, stream, sm_count));
    operands[i] = copy;
  }
  return Status::ok();
}

}  // namespace gemmtune::cuda
