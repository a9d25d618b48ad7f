#include "launch_overlap.h"

#include <cstdlib>
#include <string>

namespace gemmtune::cuda {

Result<LaunchOverlap> parse_launch_overlap(const char* value) {
  const std::string_view v = value == nullptr ? std::string_view() : std::string_view(value);
  if (v.empty() || v == "on") return LaunchOverlap::on;
  if (v == "off") return LaunchOverlap::off;
  if (v == "weights") return LaunchOverlap::weights;
  return Status(ErrorCode::invalid_argument,
                "GEMMTUNE_PDL='" + std::string(v) + "': expected off, on or weights (programmatic dependent launch)");
}

LaunchOverlap launch_overlap() {
  static const LaunchOverlap overlap = [] {
    Result<LaunchOverlap> parsed = parse_launch_overlap(std::getenv("GEMMTUNE_PDL"));
    return parsed.is_ok() ? *parsed : LaunchOverlap::on;
  }();
  return overlap;
}

Status check_launch_overlap_env() { return parse_launch_overlap(std::getenv("GEMMTUNE_PDL")).status(); }

std::string_view launch_overlap_name(LaunchOverlap overlap) {
  switch (overlap) {
    case LaunchOverlap::off:
      return "off";
    case LaunchOverlap::on:
      return "on";
    case LaunchOverlap::weights:
      return "weights";
  }
  return "?";
}

}  // namespace gemmtune::cuda
