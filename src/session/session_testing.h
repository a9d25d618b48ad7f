// For tests of the session's own logic: a session over backends the test makes (a kernel that
// refuses some calls, say) instead of the device's own.
#pragma once

#include <memory>

#include "../core/backend.h"
#include "gemmtune/session.h"

namespace gemmtune {

// What Session::create does once it has found the device and its backends.
Result<std::unique_ptr<Session>> create_session(SessionOptions options, DeviceInfo device, BackendList backends);

}  // namespace gemmtune
