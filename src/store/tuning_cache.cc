// The public TuningCache over the store's own types.
#include "gemmtune/tuning_cache.h"

#include "store_transfer.h"

namespace gemmtune {
namespace {

Status read_only_refusal(StoreMode mode) {
  if (mode == StoreMode::read_only) return invalid_argument("the tuning store is read-only (--cache-mode ro)");
  return Status::ok();
}

}  // namespace

struct TuningCache::Impl {
  std::unique_ptr<TuningStore> store;
  StoreMode mode = StoreMode::read_write;
};

TuningCache::TuningCache(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
TuningCache::~TuningCache() = default;

Result<std::unique_ptr<TuningCache>> TuningCache::open(const StoreOptions& options) {
  if (options.mode == StoreMode::off) return invalid_argument("the tuning store is off (--cache-mode / GEMMTUNE_CACHE_MODE)");
  if (options.resolved_path() == "off" && options.redis_url.empty()) {
    return invalid_argument("no tuning store: --cache / GEMMTUNE_CACHE is off and GEMMTUNE_REDIS_URL is unset");
  }
  auto impl = std::make_unique<Impl>();
  impl->mode = options.mode;
  GEMMTUNE_ASSIGN_OR_RETURN(impl->store, open_store(options));
  if (!impl->store) return not_found("no tuning store at " + options.resolved_path() + " (read-only mode creates none)");
  return std::unique_ptr<TuningCache>(new TuningCache(std::move(impl)));
}

std::string TuningCache::describe() const { return impl_->store->describe(); }

StoreMode TuningCache::mode() const { return impl_->mode; }

Result<std::vector<CachedEntry>> TuningCache::entries() {
  GEMMTUNE_ASSIGN_OR_RETURN(std::vector<ListedRecord> listed, list_entries(*impl_->store));
  std::vector<CachedEntry> out;
  for (const ListedRecord& record : listed) {
    CachedEntry e;
    e.key = record.key;
    if (!record.entry.is_ok()) {
      e.damaged = record.entry.status().message();
    } else {
      const StoreEntry& s = *record.entry;
      e.problem = s.problem_description;
      e.device = s.device;
      e.backend = s.pick_backend;
      e.config = s.pick_config;
      e.time_us = s.pick_time_us;
      e.choices = s.choices.size();
    }
    out.push_back(std::move(e));
  }
  return out;
}

Result<CacheExport> TuningCache::export_json() {
  GEMMTUNE_ASSIGN_OR_RETURN(ExportOutcome exported, export_entries(*impl_->store));
  return CacheExport{exported.document.dump(2) + "\n", exported.exported, exported.skipped};
}

Result<CacheImport> TuningCache::import_json(std::string_view document, const std::string& device_fingerprint,
                                             bool any_device) {
  GEMMTUNE_RETURN_IF_ERROR(read_only_refusal(impl_->mode));
  GEMMTUNE_ASSIGN_OR_RETURN(ImportOutcome imported,
                            import_entries(*impl_->store, document, device_fingerprint, any_device));
  return CacheImport{imported.imported, imported.other_device};
}

Status TuningCache::clear() {
  GEMMTUNE_RETURN_IF_ERROR(read_only_refusal(impl_->mode));
  return impl_->store->clear();
}

int tuning_store_schema_version() { return kStoreSchemaVersion; }

}  // namespace gemmtune
