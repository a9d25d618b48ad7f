// libFuzzer target for cost model files (parse_cost_model_document, what CostModel::load and
// read_info read before XGBoost sees the trees): any bytes are a document or a corrupt_data
// error, never a crash; what parses writes out and reads back equal. Each input that is a JSON
// object is also tried resealed (its checksum recomputed), so the fuzzer reaches the fields
// behind the checksum. The first byte says whether the trees are decoded too.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_check.h"
#include "model/cost_model_document.h"
#include "reseal.h"

namespace {

using namespace gemmtune;

void check(const std::string& text, bool with_booster) {
  auto document = parse_cost_model_document(text, "fuzz.json", with_booster);
  if (!document.is_ok()) return fuzz::check_refusal(document.status(), ErrorCode::corrupt_data, text.size());
  auto again = parse_cost_model_document(cost_model_document(document->info, document->booster_bytes).dump(),
                                         "fuzz.json", with_booster);
  if (!again.is_ok() || !(again->info == document->info) || again->booster_bytes != document->booster_bytes) {
    fuzz::fail();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const bool with_booster = data[0] & 1;
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  check(text, with_booster);
  if (auto resealed = fuzz::edited_json_object(text, fuzz::reseal)) check(*resealed, with_booster);
  return 0;
}
