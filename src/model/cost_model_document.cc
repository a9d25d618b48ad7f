#include "cost_model_document.h"

#include <cstdio>
#include <fstream>
#include <optional>
#include <type_traits>

#include "../core/json_reading.h"
#include "../store/store_entry.h"
#include "fast_top_k.h"
#include "zlib_codec.h"

namespace gemmtune {
namespace {

using nlohmann::json;

constexpr char kBase64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string base64_encode(const std::string& bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    const std::uint32_t chunk = std::uint32_t(std::uint8_t(bytes[i])) << 16 |
                                (i + 1 < bytes.size() ? std::uint32_t(std::uint8_t(bytes[i + 1])) << 8 : 0) |
                                (i + 2 < bytes.size() ? std::uint32_t(std::uint8_t(bytes[i + 2])) : 0);
    out += kBase64[chunk >> 18 & 63];
    out += kBase64[chunk >> 12 & 63];
    out += i + 1 < bytes.size() ? kBase64[chunk >> 6 & 63] : '=';
    out += i + 2 < bytes.size() ? kBase64[chunk & 63] : '=';
  }
  return out;
}

Result<std::string> base64_decode(const std::string& text) {
  auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  if (text.size() % 4 != 0) return Status(ErrorCode::corrupt_data, "booster is not base64 (length)");
  std::string out;
  out.reserve(text.size() / 4 * 3);
  for (std::size_t i = 0; i < text.size(); i += 4) {
    int v[4];
    int padding = 0;
    for (int j = 0; j < 4; ++j) {
      const char c = text[i + std::size_t(j)];
      const bool pad_allowed = i + 4 == text.size() && j >= 2;
      if (c == '=' && pad_allowed && (j == 3 || text[i + 3] == '=')) {
        v[j] = 0;
        ++padding;
      } else if ((v[j] = value(c)) < 0) {
        return Status(ErrorCode::corrupt_data, "booster is not base64 (character " + std::to_string(i + j) + ")");
      }
    }
    const std::uint32_t chunk = std::uint32_t(v[0]) << 18 | std::uint32_t(v[1]) << 12 | std::uint32_t(v[2]) << 6 |
                                std::uint32_t(v[3]);
    out += char(chunk >> 16 & 255);
    if (padding < 2) out += char(chunk >> 8 & 255);
    if (padding < 1) out += char(chunk & 255);
  }
  return out;
}

Status bad(const std::string& name, const std::string& why) {
  return Status(ErrorCode::corrupt_data, "cost model " + name + ": " + why);
}

json params_json(const TrainOptions& p) {
  return {{"rounds", p.rounds},       {"max_depth", p.max_depth},   {"eta", p.eta},
          {"subsample", p.subsample}, {"colsample", p.colsample},   {"min_child_weight", p.min_child_weight},
          {"seed", p.seed}};
}

// Typed access to a field; corrupt_data naming it when absent or of another type.
template <class T>
Status read_field(const json& object, const char* name, T& out, const std::string& file) {
  auto it = object.find(name);
  if (it == object.end()) return bad(file, std::string("lacks '") + name + "'");
  if constexpr (std::is_integral_v<T>) {
    // get<int>() of 1e300 would be an undefined conversion, of 2^40 a silent truncation.
    const std::optional<T> value = json_integer<T>(*it);
    if (!value) return bad(file, std::string("'") + name + "' is " + it->dump() + ", not an integer of its range");
    out = *value;
    return Status::ok();
  }
  try {
    out = it->get<T>();
  } catch (const json::exception&) {
    return bad(file, std::string("'") + name + "' is " + std::string(it->type_name()) + ", not of the expected type");
  }
  return Status::ok();
}

// The trees as a document holds them: base64 of UBJSON, zlib-compressed from version 2.
constexpr const char* kBoosterField = "booster_ubj_base64";
constexpr const char* kCompressedBoosterField = "booster_ubj_zlib_base64";
struct EncodedBooster {
  std::string base64;
  bool compressed = false;
};

// The header of a model document, checked: format, version, checksum, every field's type.
Result<ModelInfo> info_from_document(json document, const std::string& file, EncodedBooster* booster,
                                     int& version) {
  if (!document.is_object()) return bad(file, "is not a JSON object");
  std::string format;
  GEMMTUNE_RETURN_IF_ERROR(read_field(document, "format", format, file));
  if (format != kCostModelFormat) return bad(file, "'format' is \"" + format + "\", not \"" + kCostModelFormat + "\"");
  GEMMTUNE_RETURN_IF_ERROR(read_field(document, "version", version, file));
  if (version < kCostModelOldestVersion || version > kCostModelVersion) {
    return bad(file, "is of version " + std::to_string(version) + "; this build reads " +
                         std::to_string(kCostModelOldestVersion) + " to " + std::to_string(kCostModelVersion) +
                         " (retrain with `gemmtune model train`)");
  }
  std::string checksum;
  GEMMTUNE_RETURN_IF_ERROR(read_field(document, "checksum", checksum, file));
  document["checksum"] = "";
  if (json_checksum(document) != checksum) return bad(file, "fails its checksum (edited or damaged)");
  ModelInfo info;
  GEMMTUNE_RETURN_IF_ERROR(read_field(document, "device", info.device, file));
  GEMMTUNE_RETURN_IF_ERROR(read_field(document, "device_class", info.device_class, file));
  // Optional: only a model trained across devices has it.
  if (document.contains("devices")) {
    GEMMTUNE_RETURN_IF_ERROR(read_field(document, "devices", info.devices, file));
    if (info.devices.size() < 2) return bad(file, "'devices' names fewer than two devices");
  }
  GEMMTUNE_RETURN_IF_ERROR(read_field(document, "backend_versions", info.backend_versions, file));
  GEMMTUNE_RETURN_IF_ERROR(read_field(document, "backends", info.backends, file));
  GEMMTUNE_RETURN_IF_ERROR(read_field(document, "features", info.features, file));
  GEMMTUNE_RETURN_IF_ERROR(read_field(document, "problem_kinds", info.problem_kinds, file));
  json training;
  GEMMTUNE_RETURN_IF_ERROR(read_field(document, "training", training, file));
  GEMMTUNE_RETURN_IF_ERROR(read_field(training, "data", info.training_data, file));
  GEMMTUNE_RETURN_IF_ERROR(read_field(training, "rows", info.training_rows, file));
  GEMMTUNE_RETURN_IF_ERROR(read_field(training, "rmse_ln", info.training_rmse, file));
  GEMMTUNE_RETURN_IF_ERROR(read_field(training, "shapes", info.training_shapes, file));
  GEMMTUNE_RETURN_IF_ERROR(read_field(training, "created_unix", info.created_unix, file));
  json params;
  GEMMTUNE_RETURN_IF_ERROR(read_field(training, "params", params, file));
  GEMMTUNE_RETURN_IF_ERROR(read_field(params, "rounds", info.params.rounds, file));
  GEMMTUNE_RETURN_IF_ERROR(read_field(params, "max_depth", info.params.max_depth, file));
  GEMMTUNE_RETURN_IF_ERROR(read_field(params, "eta", info.params.eta, file));
  GEMMTUNE_RETURN_IF_ERROR(read_field(params, "subsample", info.params.subsample, file));
  GEMMTUNE_RETURN_IF_ERROR(read_field(params, "colsample", info.params.colsample, file));
  GEMMTUNE_RETURN_IF_ERROR(read_field(params, "min_child_weight", info.params.min_child_weight, file));
  GEMMTUNE_RETURN_IF_ERROR(read_field(params, "seed", info.params.seed, file));
  // Optional: models trained before it was fitted lack it, and `--fast` gives them kFastTopK.
  if (document.contains("fast")) {
    json fast;
    GEMMTUNE_RETURN_IF_ERROR(read_field(document, "fast", fast, file));
    GEMMTUNE_RETURN_IF_ERROR(read_field(fast, "top_k", info.fast_top_k, file));
    GEMMTUNE_RETURN_IF_ERROR(read_field(fast, "quality", info.fast_fit_quality, file));
    GEMMTUNE_RETURN_IF_ERROR(read_field(fast, "time_fraction", info.fast_fit_time_fraction, file));
    if (info.fast_top_k < 1 || info.fast_top_k > 1000) {
      return bad(file, "'fast.top_k' is " + std::to_string(info.fast_top_k) + ", not in 1..1000");
    }
  }
  if (booster != nullptr) {
    booster->compressed = version >= 2;
    GEMMTUNE_RETURN_IF_ERROR(read_field(document, booster->compressed ? kCompressedBoosterField : kBoosterField,
                                        booster->base64, file));
  }
  return info;
}

// What a model's "fast" record means, with the fit's own goal and cap.
std::string fast_fit_method() {
  char text[400];
  std::snprintf(text, sizeof text,
                "the smallest k whose quality reaches %g on both halves of the training shapes, each ranked by a "
                "model trained on the other, within %g of the exhaustive tuning time (else the smallest k within "
                "%g of the best quality within it); quality and time_fraction: the worse half's at k",
                kFastFitQualityGoal, kFastFitTimeCap, kFastFitQualityTolerance);
  return text;
}

}  // namespace

json cost_model_document(const ModelInfo& info, const std::string& booster_bytes) {
  json out = {{"format", kCostModelFormat},
              {"version", kCostModelVersion},
              {"device", info.device},
              {"device_class", info.device_class},
              {"backend_versions", info.backend_versions},
              {"backends", info.backends},
              {"features", info.features},
              {"target", "ln(time_us)"},
              {"problem_kinds", info.problem_kinds},
              {"training",
               {{"data", info.training_data},
                {"rows", info.training_rows},
                {"rmse_ln", info.training_rmse},
                {"shapes", info.training_shapes},
                {"params", params_json(info.params)},
                {"created_unix", info.created_unix}}},
              {kCompressedBoosterField, base64_encode(zlib_compress(booster_bytes))}};
  if (!info.devices.empty()) out["devices"] = info.devices;
  if (info.fast_top_k > 0) {
    out["fast"] = {{"top_k", info.fast_top_k},
                   {"quality", info.fast_fit_quality},
                   {"time_fraction", info.fast_fit_time_fraction},
                   {"fitted", fast_fit_method()}};
  }
  out["checksum"] = "";
  out["checksum"] = json_checksum(out);
  return out;
}

Status write_cost_model_document(const std::string& path, const ModelInfo& info, const std::string& booster_bytes) {
  // Written beside it and renamed over it: a write that fails leaves the file as it was.
  const std::string partial = path + ".partial";
  std::ofstream out(partial, std::ios::binary | std::ios::trunc);
  const json document = cost_model_document(info, booster_bytes);
  out << "{\n";
  std::size_t i = 0;
  for (const auto& [key, value] : document.items()) {
    out << "  " << json(key).dump() << ": " << value.dump() << (++i < document.size() ? ",\n" : "\n");
  }
  out << "}\n";
  out.close();
  if (!out.good() || std::rename(partial.c_str(), path.c_str()) != 0) {
    std::remove(partial.c_str());
    return Status(ErrorCode::io_error, "cannot write cost model " + path);
  }
  return Status::ok();
}

Result<CostModelDocument> parse_cost_model_document(std::string_view text, const std::string& name, bool with_booster) {
  // Checked before parsing: the checksum dumps the document, which recurses once per level.
  if (!json_nests_within(text)) {
    return bad(name, "nests arrays and objects deeper than " + std::to_string(kMaxJsonNesting) + " levels");
  }
  json document = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (document.is_discarded()) return bad(name, "is not valid JSON (truncated or damaged)");
  EncodedBooster booster;
  CostModelDocument out;
  GEMMTUNE_ASSIGN_OR_RETURN(out.info,
                            info_from_document(std::move(document), name, with_booster ? &booster : nullptr, out.version));
  if (with_booster) {
    auto bytes = base64_decode(booster.base64);
    if (!bytes.is_ok()) return bad(name, bytes.status().message());
    if (booster.compressed) bytes = zlib_decompress(*bytes);
    if (!bytes.is_ok()) return bad(name, bytes.status().message());
    out.booster_bytes = std::move(bytes).value();
  }
  return out;
}

}  // namespace gemmtune
