#include "route_record.h"

#include <nlohmann/json.hpp>

#include "store_entry.h"

namespace gemmtune {

// Bump when the record's layout changes. 1: {key, backend, config, checksum}, and optional
// fields that older records lack: "revisited" (true) once the route was decided again in use,
// "held" (true) once its calls in use ran no slower than its rivals, "rival_us" (the rivals'
// fastest round when decided), "alone" (true) when no rival could run the shape then. Records
// without them read as neither checked nor timed.
constexpr int kRouteRecordVersion = 1;

std::string route_key(std::string_view device, std::string_view family, std::string_view hints,
                      std::string_view policy, std::int64_t m, std::int64_t n, std::int64_t k) {
  return std::string(kRouteKeyPrefix) + "v" + std::to_string(kRouteRecordVersion) + "/" + std::string(device) + "/" +
         std::string(family) + "/" + std::string(hints) + "/" + std::string(policy) + "/" + std::to_string(m) + "x" +
         std::to_string(n) + "x" + std::to_string(k);
}

bool is_route_key(std::string_view key) { return key.substr(0, kRouteKeyPrefix.size()) == kRouteKeyPrefix; }

std::string serialize_route(const std::string& key, const RouteRecord& route) {
  nlohmann::json body = {{"key", key}, {"backend", route.backend}, {"config", route.config.to_string()}, {"checksum", ""}};
  if (route.revisited) body["revisited"] = true;
  if (route.held) body["held"] = true;
  if (route.rival_us > 0) body["rival_us"] = route.rival_us;
  if (route.alone) body["alone"] = true;
  body["checksum"] = json_checksum(body);
  return body.dump();
}

Result<RouteRecord> parse_route(const std::string& key, std::string_view text) {
  auto bad = [](const std::string& why) { return Status(ErrorCode::corrupt_data, "stored route " + why); };
  nlohmann::json body = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!body.is_object() || !body.contains("checksum") || !body["checksum"].is_string() || !body.contains("key") ||
      !body["key"].is_string() || !body.contains("backend") || !body["backend"].is_string() ||
      !body.contains("config") || !body["config"].is_string()) {
    return bad("is malformed");
  }
  const std::string checksum = body["checksum"].get<std::string>();
  body["checksum"] = "";
  if (checksum != json_checksum(body)) return bad("fails its checksum (edited or damaged)");
  if (body["key"].get<std::string>() != key) return bad("is filed under another key");
  RouteRecord route;
  route.backend = body["backend"].get<std::string>();
  auto config = KernelConfig::parse(upgrade_config_text(route.backend, body["config"].get<std::string>()));
  if (!config.is_ok()) return bad("has a bad config: " + config.status().message());
  route.config = *config;
  if (body.contains("revisited")) {
    if (!body["revisited"].is_boolean()) return bad("is malformed");
    route.revisited = body["revisited"].get<bool>();
  }
  if (body.contains("held")) {
    if (!body["held"].is_boolean()) return bad("is malformed");
    route.held = body["held"].get<bool>();
  }
  if (body.contains("alone")) {
    if (!body["alone"].is_boolean()) return bad("is malformed");
    route.alone = body["alone"].get<bool>();
  }
  if (body.contains("rival_us")) {
    if (!body["rival_us"].is_number() || !(body["rival_us"].get<double>() > 0)) return bad("is malformed");
    route.rival_us = body["rival_us"].get<double>();
  }
  return route;
}

}  // namespace gemmtune
