// Local first, then remote: a machine answers most lookups from its own file and asks the
// fleet only for what it has not seen.
#include <atomic>

#include "tuning_store.h"

namespace gemmtune {
namespace {

class TieredStore final : public TuningStore {
 public:
  TieredStore(std::unique_ptr<TuningStore> local, std::unique_ptr<TuningStore> remote)
      : local_(std::move(local)), remote_(std::move(remote)) {}

  std::string describe() const override { return local_->describe() + ", then " + remote_->describe(); }

  Result<std::string> get(const std::string& key) override {
    auto local = local_->get(key);
    if (local.is_ok() || local.status().code() != ErrorCode::not_found) return local;
    if (!remote_up()) return local;
    auto remote = remote_->get(key);
    if (!remote.is_ok()) {
      note_remote(remote.status());
      return local;
    }
    // Promoted so that the next lookup on this machine stays local; a failure to copy only
    // costs a later remote lookup.
    (void)local_->put(key, *remote);
    return remote;
  }

  Status put(const std::string& key, const std::string& value) override {
    GEMMTUNE_RETURN_IF_ERROR(local_->put(key, value));
    if (remote_up()) note_remote(remote_->put(key, value));
    return Status::ok();
  }

  Status put_all(const std::vector<StoreRecord>& records) override {
    GEMMTUNE_RETURN_IF_ERROR(local_->put_all(records));
    if (remote_up()) note_remote(remote_->put_all(records));
    return Status::ok();
  }

  // The union, local records winning: what a lookup here would find.
  Result<std::vector<StoreRecord>> list() override {
    GEMMTUNE_ASSIGN_OR_RETURN(std::vector<StoreRecord> records, local_->list());
    if (!remote_up()) return records;
    auto remote = remote_->list();
    if (!remote.is_ok()) {
      note_remote(remote.status());
      return records;
    }
    std::vector<StoreRecord> merged = records;
    for (StoreRecord& r : *remote) {
      bool known = false;
      for (const StoreRecord& l : records) known = known || l.key == r.key;
      if (!known) merged.push_back(std::move(r));
    }
    return merged;
  }

  Status clear() override {
    GEMMTUNE_RETURN_IF_ERROR(local_->clear());
    if (remote_up()) note_remote(remote_->clear());
    return Status::ok();
  }

 private:
  bool remote_up() const { return !remote_down_.load(std::memory_order_relaxed); }

  // Any failure of the remote takes it out for the rest of the process: one warning and one
  // timeout, rather than one per lookup on a hot tuning loop.
  void note_remote(const Status& status) {
    if (status.is_ok() || status.code() == ErrorCode::not_found) return;
    if (remote_down_.exchange(true)) return;
    warn_once("shared tuning store " + remote_->describe() + " failed (" + status.message() +
              "); carrying on with the local store only");
  }

  std::unique_ptr<TuningStore> local_;
  std::unique_ptr<TuningStore> remote_;
  std::atomic<bool> remote_down_{false};
};

}  // namespace

std::unique_ptr<TuningStore> make_tiered_store(std::unique_ptr<TuningStore> local, std::unique_ptr<TuningStore> remote) {
  return std::make_unique<TieredStore>(std::move(local), std::move(remote));
}

}  // namespace gemmtune
