// Which entry of a table is for a device and problem. Apart from the parser, so that the
// parser's fuzz target need not bring the device detection along.
#include "gemmtune/lut.h"

namespace gemmtune {

const LutEntry* LookupTable::find(const DeviceInfo& device, const ProblemKey& problem) const {
  const std::string key = problem.to_string();
  const LutEntry* by_class = nullptr;
  const std::string fingerprint = device.fingerprint();
  const std::string device_class = device.device_class();
  for (const LutEntry& entry : entries) {
    if (entry.problem != key) continue;
    if (!entry.device.empty() && entry.device == fingerprint) return &entry;
    if (by_class == nullptr && !entry.device_class.empty() && entry.device_class == device_class) by_class = &entry;
  }
  return by_class;
}

}  // namespace gemmtune
