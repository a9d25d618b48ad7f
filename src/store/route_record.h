// Routes of multi-kernel ops in the tuning store: which sub-kernel serves a runtime shape, so a
// new process routes known shapes without timing them again. Records sit beside the tuning
// entries under their own key prefix; their value names the sub-kernel by backend and config
// (indices can change when hints are re-tuned) and repeats its key under a checksum, so a
// damaged or moved record is ignored, re-routed and overwritten.
#pragma once

#include <string>
#include <string_view>

#include "gemmtune/config.h"
#include "gemmtune/status.h"

namespace gemmtune {

inline constexpr std::string_view kRouteKeyPrefix = "route/";

// "route/v1/<device>/<family>/<hints>/<policy>/<m>x<n>x<k>".
std::string route_key(std::string_view device, std::string_view family, std::string_view hints,
                      std::string_view policy, std::int64_t m, std::int64_t n, std::int64_t k);
bool is_route_key(std::string_view key);

struct RouteRecord {
  std::string backend;
  KernelConfig config;
  // The route was decided again once the shape was in use (GemmOpOptions::revisit_after_calls):
  // no process revisits it.
  bool revisited = false;
  // The route's calls in use ran no slower than any rival had: it held, and no process
  // checks it again.
  bool held = false;
  // The rivals' fastest round (us) when the route was decided: what a later process's calls in
  // use are held against. 0: unknown (a record from before the field, or no rival).
  double rival_us = 0;
  // No rival could run the shape when the route was decided (each hint's kernel made for sizes
  // this one is not, say): there is nothing to check the route against, and a revisit would time
  // the one kernel again. No process checks it.
  bool alone = false;
};

std::string serialize_route(const std::string& key, const RouteRecord& route);
// corrupt_data when the text is not a route record, fails its checksum, or was filed under
// another key.
Result<RouteRecord> parse_route(const std::string& key, std::string_view text);

}  // namespace gemmtune
