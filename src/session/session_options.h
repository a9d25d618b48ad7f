// What Session::create does with its options before any tuning: checks them, and loads the
// lookup table and cost model they name.
#pragma once

#include "../core/backend.h"
#include "gemmtune/device.h"
#include "gemmtune/session.h"
#include "gemmtune/status.h"

namespace gemmtune {

// Ok, or which tuning or routing option is out of range.
Status validate_session_options(const SessionOptions& options);

// The lookup table and cost model the options name but do not hold yet, loaded into
// options.tuning. Neither is needed to tune: one that does not load, or a model trained
// elsewhere, is reported once and left out.
void load_lut_and_model(SessionOptions& options, const DeviceInfo& device, const BackendList& backends);

}  // namespace gemmtune
