#include "worker_location.h"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>

#include <pybind11/pybind11.h>

#include "gemmtune/session.h"

namespace gemmtune::python {

void point_at_worker() {
  if (const char* set = std::getenv("GEMMTUNE_WORKER"); set != nullptr && *set != '\0') return;
  bool cuda = false;
  for (const BackendAvailability& backend : compiled_backends(DeviceKind::cuda)) cuda = cuda || backend.available;
  if (!cuda) return;
  Dl_info self{};
  if (dladdr(reinterpret_cast<const void*>(&point_at_worker), &self) == 0 || self.dli_fname == nullptr) return;
  std::error_code ec;
  std::filesystem::path dir = std::filesystem::absolute(self.dli_fname, ec).parent_path();
  if (ec) return;
  // Four levels reach PREFIX from PREFIX/lib/python3/dist-packages.
  for (int level = 0; level < 4 && dir.has_relative_path(); ++level, dir = dir.parent_path()) {
    const std::filesystem::path worker = dir / "bin" / "gemmtune-worker";
    std::error_code missing;  // a folder without the worker is no error: the search goes on
    if (std::filesystem::is_regular_file(worker, missing)) {
      // Through os.environ, which puts it in the process environment too: Python's copy and
      // the one gemmtune reads then agree.
      pybind11::module_::import("os").attr("environ").attr("setdefault")("GEMMTUNE_WORKER", worker.string());
      return;
    }
  }
}

}  // namespace gemmtune::python
