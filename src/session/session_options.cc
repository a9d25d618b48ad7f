#include "session_options.h"

#include <cstdlib>
#include <map>
#include <string>

#include "gemmtune/cost_model.h"
#include "gemmtune/lut.h"
#include "../core/warnings.h"

namespace gemmtune {

std::string lut_path_from_env() {
  const char* value = std::getenv("GEMMTUNE_LUT");
  return value ? value : "";
}

std::string model_path_from_env() {
  const char* value = std::getenv("GEMMTUNE_MODEL");
  return value ? value : "";
}

Status validate_session_options(const SessionOptions& options) {
  if (options.tuning.timing.samples < 1) return invalid_argument("tuning.timing.samples must be >= 1");
  if (options.tuning.noise_band < 0) return invalid_argument("tuning.noise_band must be >= 0");
  if (options.tuning.finalists < 0) return invalid_argument("tuning.finalists must be >= 0");
  if (options.tuning.close_band < 0) return invalid_argument("tuning.close_band must be >= 0");
  if (options.tuning.close_repeats < 0) return invalid_argument("tuning.close_repeats must be >= 0");
  return options.routing.validate();
}

void load_lut_and_model(SessionOptions& options, const DeviceInfo& device, const BackendList& backends) {
  if (!options.tuning.lut && !options.lut_path.empty()) {
    auto table = LookupTable::load(options.lut_path);
    if (table.is_ok()) {
      options.tuning.lut = std::make_shared<const LookupTable>(std::move(table).value());
    } else {
      warn_once("lookup table not used: " + table.status().message());
    }
  }
  if (!options.tuning.model && !options.tuning.benchmark.all()) {
    std::map<std::string, std::string> versions;
    for (const auto& backend : backends) versions[std::string(backend->name())] = backend->version();
    auto model = options.model_path.empty() ? find_cost_model(device.fingerprint(), versions, device.device_class())
                                            : load_cost_model_for(options.model_path, device, versions);
    if (model.is_ok()) {
      options.tuning.model = *model;
      const ModelInfo& info = (*model)->info();
      const ModelFit fit = model_fit(info, device.fingerprint(), device.device_class());
      // The kinds of problem it has no data for get the model found for each (a model named by
      // --model stands alone): each at the k its fit gives, where --fast asked for the model's k.
      // Before the stand-in's k below: that turns model_k off for the session's own model.
      if (options.model_path.empty()) {
        for (const auto& [kind, other] :
             find_cost_models_for_other_kinds(info, device.fingerprint(), versions, device.device_class())) {
          const ModelFit its_fit = model_fit(other->info(), device.fingerprint(), device.device_class());
          options.tuning.models_by_kind[kind] =
              KindModel{other, options.tuning.benchmark.model_k ? fast_k_for(other->info(), its_fit) : 0,
                        model_named(other->info(), its_fit)};
        }
      }
      if (stands_in(fit)) {
        // A stand-in ranks less well than a model of the class (the nearest class's: 0.95-0.97
        // of the exhaustive best at its k where it shares the ISA or the thread count, 0.96-0.98
        // at twice it; bench/results/2026-11-29e-cpu-intel-emr-2t.md): `--fast` times twice its k.
        std::string k_note;
        if (options.tuning.benchmark.model_k) {
          options.tuning.benchmark = BenchmarkSpace{fast_k_for(info, fit), /*model_k=*/false};
          k_note = "; --fast times its top " + std::to_string(options.tuning.benchmark.top_k) +
                   (fit == ModelFit::nearest_class ? ", twice the k fitted on its own class" : ", twice its k");
        }
        const std::string which = fit == ModelFit::nearest_class
                                      ? "the one of the nearest class, " + info.device_class + " ('" + info.device + "')"
                                      : "one trained across the classes " + info.device_class + ", which span it,";
        const std::string none = options.model_path.empty()
                                     ? "none of this device or its class (" + device.device_class() +
                                           ") at this build's versions; "
                                     : "";
        warn_once("cost model: " + none + which + " ranks the choices instead" + k_note);
      } else if (fit == ModelFit::device_of_class) {
        warn_once("cost model: none was trained on this device; the one of another " + device.device_class() +
                  " device ('" + info.device + "') ranks the choices instead");
      }
      for (const std::string& note : (*model)->set_aside_notes()) {
        warn_once("cost model: it does not rank " + note + "; that peer's default space is timed in full");
      }
    } else {
      warn_once("cost model not used: " + model.status().message() + "; benchmark " +
                options.tuning.benchmark.to_string() + " times the default space in full instead");
    }
  }
}

}  // namespace gemmtune
