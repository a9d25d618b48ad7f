#include "backend.h"

#include <exception>

namespace gemmtune {

Status run_guarded(Kernel& kernel, const GemmArgs& args) {
  try {
    return kernel.run(args);
  } catch (const std::exception& e) {
    return Status(ErrorCode::internal, std::string("run threw: ") + e.what());
  } catch (...) {
    return Status(ErrorCode::internal, "run threw a non-standard exception");
  }
}

}  // namespace gemmtune
