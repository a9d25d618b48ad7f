// The cost model's trees in a build without XGBoost: every call says why it cannot work.
#include "booster.h"

namespace gemmtune {

bool booster_built_in() { return false; }

std::string booster_absent_message() {
  return "this build has no learned cost model: XGBoost was not found or GEMMTUNE_WITH_XGBOOST is OFF "
         "(install libxgboost-dev and rebuild)";
}

Result<std::unique_ptr<Booster>> train_booster(const std::vector<float>&, std::size_t, std::size_t,
                                               const std::vector<float>&, const TrainOptions&) {
  return unsupported(booster_absent_message());
}

Result<std::unique_ptr<Booster>> load_booster(const std::string&) { return unsupported(booster_absent_message()); }

}  // namespace gemmtune
