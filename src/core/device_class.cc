#include "gemmtune/config.h"
#include "gemmtune/device.h"

namespace gemmtune {

std::string DeviceInfo::device_class() const {
  if (kind == DeviceKind::cuda) return "cuda/" + cuda.arch() + "/" + std::to_string(cuda.sm_count) + "sm";
  return "cpu/" + std::string(cpu_isa_name(cpu.best_isa())) + "/" + std::to_string(cpu.logical_cores) + "t";
}

}  // namespace gemmtune
