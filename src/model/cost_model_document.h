// The cost model file: one JSON document (format, version, what the model knows of itself, the
// XGBoost trees as base64 UBJSON) under a checksum. Reading it checks every field before any
// is trusted; whether the trees load is the booster's business (booster.h).
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "gemmtune/cost_model.h"

namespace gemmtune {

struct CostModelDocument {
  ModelInfo info;
  std::string booster_bytes;  // XGBoost UBJSON, decoded; empty unless asked for
  int version = 0;            // the file's layout (kCostModelOldestVersion..kCostModelVersion)
};

// The document of a model, its checksum included.
nlohmann::json cost_model_document(const ModelInfo& info, const std::string& booster_bytes);
// Writes the document of a model to `path`, one line a top-level field (the long trees on their
// own line); the file is replaced whole or not at all.
Status write_cost_model_document(const std::string& path, const ModelInfo& info, const std::string& booster_bytes);
// corrupt_data "cost model <name>: <what is wrong>" for anything but a whole, intact document.
// Without `with_booster` the trees are neither required nor decoded (reading a model's info).
Result<CostModelDocument> parse_cost_model_document(std::string_view text, const std::string& name, bool with_booster);

}  // namespace gemmtune
