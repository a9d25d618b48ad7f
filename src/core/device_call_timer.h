// Times a program's calls on a device whose calls only enqueue work, for the in-use check of a
// benchmark route (GemmOpOptions::revisit_after_calls). The host's clock would time the launch;
// a pair of events on the caller's stream brackets the kernel instead, and is read once the
// device has run it. The CPU needs none of this: its calls return when the product is done.
#pragma once

#include <cstdint>
#include <memory>

#include "gemmtune/device.h"
#include "gemmtune/status.h"

namespace gemmtune {

class DeviceCallTimer {
 public:
  virtual ~DeviceCallTimer() = default;
  // Bracket one call on `stream`; `slot` < the slots the timer was made with. A slot is
  // bracketed once: later begin/end on it are ignored. A stream being captured into a graph is
  // not bracketed (its work does not run now).
  virtual void begin(std::int64_t slot, void* stream) = 0;
  virtual void end(std::int64_t slot, void* stream) = 0;
  // The time (ns) from the begin to the end of slot's call, waiting until the device has run
  // it; 0 when the slot was not bracketed, or not to its end yet. The time is an upper bound
  // of the kernel's: a stream left idle while the host launched counts too.
  virtual std::int64_t elapsed_ns(std::int64_t slot) = 0;
};

// The timer for a device's calls, with `slots` slots; defined by the platform registry.
// Unsupported for the CPU and for builds without the device's backends.
Result<std::unique_ptr<DeviceCallTimer>> create_device_call_timer(const DeviceInfo& device, std::int64_t slots);

}  // namespace gemmtune
