// The gradient-boosted trees behind the cost model, through XGBoost's C API
// (libxgboost-dev). Builds without XGBoost get booster_absent.cc, whose every call says so.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "gemmtune/cost_model.h"
#include "gemmtune/status.h"

namespace gemmtune {

class Booster {
 public:
  virtual ~Booster() = default;
  // The model as XGBoost's UBJSON bytes, which load() reads back.
  virtual Result<std::string> save() const = 0;
  // One prediction per row of `features` (rows × cols, row-major).
  virtual Result<std::vector<float>> predict(const std::vector<float>& features, std::size_t rows,
                                             std::size_t cols) const = 0;
};

bool booster_built_in();

// Regression of `labels` on `features` (rows × cols, row-major), squared error.
Result<std::unique_ptr<Booster>> train_booster(const std::vector<float>& features, std::size_t rows, std::size_t cols,
                                               const std::vector<float>& labels, const TrainOptions& options);
Result<std::unique_ptr<Booster>> load_booster(const std::string& bytes);

// "this build has no XGBoost …": the message every model command gives without it.
std::string booster_absent_message();

}  // namespace gemmtune
