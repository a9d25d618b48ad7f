// The cost model's trees through XGBoost's C API.
#include <xgboost/c_api.h>

#include <cmath>
#include <cstdio>
#include <mutex>

#include "booster.h"
#include "../core/usable_cpus.h"

namespace gemmtune {
namespace {

// XGBoost's last error for a failed call, as a Status.
Status xgb_error(const char* call) { return internal_error(std::string("XGBoost ") + call + ": " + XGBGetLastError()); }

#define GEMMTUNE_XGB(call)                                  \
  do {                                                      \
    if ((call) != 0) return xgb_error(#call);               \
  } while (0)

class DMatrix {
 public:
  ~DMatrix() {
    if (handle_ != nullptr) XGDMatrixFree(handle_);
  }
  static Result<std::unique_ptr<DMatrix>> create(const std::vector<float>& features, std::size_t rows, std::size_t cols) {
    auto out = std::make_unique<DMatrix>();
    // NaN marks a missing value; every feature is always present.
    GEMMTUNE_XGB(XGDMatrixCreateFromMat(features.data(), bst_ulong(rows), bst_ulong(cols), std::nanf(""), &out->handle_));
    return out;
  }
  DMatrixHandle handle() const { return handle_; }

 private:
  DMatrixHandle handle_ = nullptr;
};

class XgbBooster final : public Booster {
 public:
  ~XgbBooster() override {
    if (handle_ != nullptr) XGBoosterFree(handle_);
  }

  static Result<std::unique_ptr<XgbBooster>> create(const DMatrix* train) {
    auto out = std::make_unique<XgbBooster>();
    DMatrixHandle matrices[1] = {train ? train->handle() : nullptr};
    GEMMTUNE_XGB(XGBoosterCreate(matrices, train ? 1 : 0, &out->handle_));
    return out;
  }

  Status set(const char* name, const std::string& value) {
    GEMMTUNE_XGB(XGBoosterSetParam(handle_, name, value.c_str()));
    return Status::ok();
  }

  Status load(const std::string& bytes) {
    GEMMTUNE_XGB(XGBoosterLoadModelFromBuffer(handle_, bytes.data(), bst_ulong(bytes.size())));
    return Status::ok();
  }

  Status update(int round, const DMatrix& train) {
    GEMMTUNE_XGB(XGBoosterUpdateOneIter(handle_, round, train.handle()));
    return Status::ok();
  }

  Result<std::string> save() const override {
    std::lock_guard lock(mutex_);
    bst_ulong length = 0;
    const char* bytes = nullptr;
    GEMMTUNE_XGB(XGBoosterSaveModelToBuffer(handle_, R"({"format": "ubj"})", &length, &bytes));
    return std::string(bytes, length);
  }

  Result<std::vector<float>> predict(const std::vector<float>& features, std::size_t rows,
                                     std::size_t cols) const override {
    GEMMTUNE_ASSIGN_OR_RETURN(auto matrix, DMatrix::create(features, rows, cols));
    // XGBoost's predictor keeps per-booster scratch state: one prediction at a time.
    std::lock_guard lock(mutex_);
    bst_ulong length = 0;
    const float* values = nullptr;
    GEMMTUNE_XGB(XGBoosterPredict(handle_, matrix->handle(), 0, 0, 0, &length, &values));
    if (length != rows) return internal_error("XGBoost predicted " + std::to_string(length) + " values for " +
                                              std::to_string(rows) + " rows");
    return std::vector<float>(values, values + length);
  }

 private:
  BoosterHandle handle_ = nullptr;
  mutable std::mutex mutex_;
};

std::string text(double value) {
  char out[32];
  std::snprintf(out, sizeof out, "%.17g", value);
  return out;
}

}  // namespace

bool booster_built_in() { return true; }

std::string booster_absent_message() { return "this build has the learned cost model (XGBoost)"; }

Result<std::unique_ptr<Booster>> train_booster(const std::vector<float>& features, std::size_t rows, std::size_t cols,
                                               const std::vector<float>& labels, const TrainOptions& options) {
  if (rows == 0) return invalid_argument("no rows to train on");
  if (labels.size() != rows || features.size() != rows * cols) return internal_error("training matrix of wrong size");
  GEMMTUNE_ASSIGN_OR_RETURN(auto matrix, DMatrix::create(features, rows, cols));
  GEMMTUNE_XGB(XGDMatrixSetFloatInfo(matrix->handle(), "label", labels.data(), bst_ulong(rows)));
  GEMMTUNE_ASSIGN_OR_RETURN(auto booster, XgbBooster::create(matrix.get()));
  const int threads = options.threads > 0 ? options.threads : usable_cpus();
  const std::pair<const char*, std::string> params[] = {
      {"objective", "reg:squarederror"},
      {"tree_method", "hist"},
      {"max_depth", std::to_string(options.max_depth)},
      {"eta", text(options.eta)},
      {"subsample", text(options.subsample)},
      {"colsample_bytree", text(options.colsample)},
      {"min_child_weight", text(options.min_child_weight)},
      {"seed", std::to_string(options.seed)},
      {"nthread", std::to_string(threads)},
      {"verbosity", "0"},
  };
  for (const auto& [name, value] : params) GEMMTUNE_RETURN_IF_ERROR(booster->set(name, value));
  for (int round = 0; round < options.rounds; ++round) GEMMTUNE_RETURN_IF_ERROR(booster->update(round, *matrix));
  return std::unique_ptr<Booster>(std::move(booster));
}

Result<std::unique_ptr<Booster>> load_booster(const std::string& bytes) {
  GEMMTUNE_ASSIGN_OR_RETURN(auto booster, XgbBooster::create(nullptr));
  GEMMTUNE_RETURN_IF_ERROR(booster->load(bytes));
  // Ranking a few hundred choices: threads would cost more than they save.
  GEMMTUNE_RETURN_IF_ERROR(booster->set("nthread", "1"));
  return std::unique_ptr<Booster>(std::move(booster));
}

}  // namespace gemmtune
