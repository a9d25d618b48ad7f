// libFuzzer target for stored entries (parse_entry): any bytes are an entry or a corrupt_data
// error, never a crash. A stored entry carries a checksum that random bytes almost never match,
// so every input that is a JSON object is also tried resealed (its checksum recomputed), which
// takes the fuzzer past the checksum to the checks of every field.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_check.h"
#include "reseal.h"
#include "store/store_entry.h"

namespace {

using namespace gemmtune;

void check(const Result<StoreEntry>& entry, std::size_t input_size) {
  if (!entry.is_ok()) return fuzz::check_refusal(entry.status(), ErrorCode::corrupt_data, input_size);
  // What parses writes out and reads back equal.
  auto again = parse_entry(serialize_entry(*entry));
  if (!again.is_ok() || !(*again == *entry)) fuzz::fail();
  auto report = report_from_entry(*entry);
  if (!report.is_ok()) fuzz::check_refusal(report.status(), ErrorCode::corrupt_data, input_size);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  check(parse_entry(text), size);
  if (auto resealed = fuzz::edited_json_object(text, fuzz::reseal)) check(parse_entry(*resealed), resealed->size());
  return 0;
}
