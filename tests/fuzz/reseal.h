// Checksummed JSON (store entries, cost models, entries of an export) hides every field from a
// fuzzer behind a checksum that random bytes almost never match; the targets also try each
// input with its checksums recomputed, as a careless writer would leave it.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/json_reading.h"
#include "store/store_entry.h"

namespace gemmtune::fuzz {

// The checksum of a JSON object recomputed in place.
inline void reseal(nlohmann::json& object) {
  object["checksum"] = "";
  object["checksum"] = json_checksum(object);
}

// The text, when it is a JSON object, parsed and handed to `edit` and dumped; nullopt otherwise.
// Text nested too deep is left alone: dumping it would recurse as deep as the parsers refuse to.
template <class Edit>
std::optional<std::string> edited_json_object(std::string_view text, Edit edit) {
  if (!json_nests_within(text)) return std::nullopt;
  nlohmann::json document = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!document.is_object()) return std::nullopt;
  edit(document);
  return document.dump();
}

}  // namespace gemmtune::fuzz
