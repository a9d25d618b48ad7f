// libFuzzer target for `gemmtune cache import` files (import_entries into a store kept in
// memory): any bytes import whole or are refused as corrupt_data with nothing written, never a
// crash. Each input that is a JSON object is also tried with every entry resealed (checksums
// recomputed), so the fuzzer reaches the checks of every field of every entry.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_check.h"
#include "reseal.h"
#include "store/store_transfer.h"

namespace {

using namespace gemmtune;

class MemoryStore final : public TuningStore {
 public:
  std::vector<StoreRecord> records;
  int writes = 0;
  std::string describe() const override { return "memory"; }
  Result<std::string> get(const std::string&) override { return not_found("none"); }
  Status put(const std::string& key, const std::string& value) override {
    ++writes;
    records.push_back({key, value});
    return Status::ok();
  }
  Status put_all(const std::vector<StoreRecord>& all) override {
    ++writes;
    records.insert(records.end(), all.begin(), all.end());
    return Status::ok();
  }
  Result<std::vector<StoreRecord>> list() override { return records; }
  Status clear() override { return Status::ok(); }
};

void check(const std::string& text, bool any_device) {
  MemoryStore store;
  auto imported = import_entries(store, text, "cpu|fuzz", any_device);
  if (!imported.is_ok()) {
    fuzz::check_refusal(imported.status(), ErrorCode::corrupt_data, text.size());
    if (store.writes != 0) fuzz::fail();  // all or nothing
    return;
  }
  if (std::size_t(imported->imported) != store.records.size()) fuzz::fail();
  // What was imported lists back as intact entries, each under its own key.
  auto listed = list_entries(store);
  if (!listed.is_ok()) fuzz::fail();
  for (const ListedRecord& record : *listed) {
    if (!record.entry.is_ok()) fuzz::fail();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const bool any_device = data[0] & 1;
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  check(text, any_device);
  auto resealed = fuzz::edited_json_object(text, [](nlohmann::json& document) {
    auto entries = document.find("entries");
    if (entries == document.end() || !entries->is_array()) return;
    for (nlohmann::json& entry : *entries) {
      if (entry.is_object()) fuzz::reseal(entry);
    }
  });
  if (resealed) check(*resealed, any_device);
  return 0;
}
