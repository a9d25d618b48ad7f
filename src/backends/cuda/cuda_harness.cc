#include "cuda_backends.h"

namespace gemmtune::cuda {
Result<std::unique_ptr<Harness>> make_cuda_harness(const DeviceInfo&) { return unsupported("cuda harness: pending"); }
}  // namespace gemmtune::cuda
