// gemmtune devices: what was detected, and which backends this build has.
#include <algorithm>
#include <cstdio>
#include <iostream>

#include "commands.h"
#include "common.h"
#include "gemmtune/cost_model.h"
#include "gemmtune/session.h"

namespace gemmtune::cli {

int run_devices(int argc, char** argv) {
  const std::vector<OptionSpec> specs = {{"json", false, "--json                 machine-readable output"}};
  if (asks_for_help(argc, argv)) {
    std::cout << usage("devices", "Lists the devices gemmtune detected and the backends compiled in.", specs);
    return kExitOk;
  }
  auto args = Args::parse("devices", specs, argc, argv, 2);
  if (!args.is_ok()) return fail(args.status());
  auto cpu = find_device("cpu");
  if (!cpu.is_ok()) return fail(cpu.status());
  auto cuda = find_device("cuda:0");

  // Which cost model `--fast` would rank with here, and at which k (a stand-in's twice its own).
  nlohmann::json model = {{"found", false}};
  std::string model_line = CostModel::built_in() ? "built in (XGBoost)" : CostModel::not_built_in_reason();
  if (CostModel::built_in()) {
    // Only for the backends' versions: no store, no table, no model of its own.
    SessionOptions options;
    options.store.path = "off";
    options.store.redis_url = "";
    options.lut_path = "";
    options.model_path = "";
    auto session = Session::create(options);
    // The model GEMMTUNE_MODEL names, as a session takes it, else the one shipped for the CPU.
    const std::string path = model_path_from_env();
    auto found = !session.is_ok()  ? Result<std::shared_ptr<const CostModel>>(session.status())
                 : !path.empty()   ? load_cost_model_for(path, *cpu, (*session)->backend_versions())
                                   : find_cost_model(cpu->fingerprint(), (*session)->backend_versions(), cpu->device_class());
    if (found.is_ok()) {
      const ModelInfo& info = (*found)->info();
      const ModelFit fit = model_fit(info, cpu->fingerprint(), cpu->device_class());
      const int k = fast_k_for(info, fit);
      model = {{"found", true},
               {"fit", model_fit_name(fit)},
               {"device_class", info.device_class},
               {"fast_top_k", k},
               {"set_aside", (*found)->set_aside_notes()}};
      model_line += "; the CPU's: " + std::string(model_fit_name(fit)) +
                    (fit == ModelFit::this_device ? "" : " (" + info.device_class + ")") + ", --fast times its top " +
                    std::to_string(k);
      for (const std::string& note : (*found)->set_aside_notes()) {
        model_line += "; it does not rank " + note + ": timed in full";
      }
      model["problem_kinds"] = info.problem_kinds;
      std::string kinds;
      for (const std::string& kind : info.problem_kinds) kinds += (kinds.empty() ? "" : ", ") + kind;
      model_line += "; it knows " + kinds;
      // The kinds it has no data for, ranked by another model where one knows them (a session
      // finds them alike; none where --model or GEMMTUNE_MODEL names one).
      nlohmann::json others = nlohmann::json::object();
      if (path.empty()) {
        // One line part per model, naming the kinds it ranks: one loaded file serves several
        // kinds (for_device binds a copy per lookup, sharing its info).
        struct Part {
          const ModelInfo* info;
          std::string kinds, said;
        };
        std::vector<Part> parts;
        for (const auto& [kind, other] : find_cost_models_for_other_kinds(info, cpu->fingerprint(),
                                                                          (*session)->backend_versions(),
                                                                          cpu->device_class())) {
          const ModelFit its_fit = model_fit(other->info(), cpu->fingerprint(), cpu->device_class());
          const int its_k = fast_k_for(other->info(), its_fit);
          others[kind] = {{"device", other->info().device}, {"fit", model_fit_name(its_fit)}, {"fast_top_k", its_k}};
          auto same = std::find_if(parts.begin(), parts.end(), [&](const Part& p) { return p.info == &other->info(); });
          if (same != parts.end()) {
            same->kinds += ", " + kind;
          } else {
            parts.push_back({&other->info(), kind, model_named(other->info(), its_fit) + ", top " + std::to_string(its_k)});
          }
        }
        for (const Part& part : parts) model_line += "; " + part.kinds + ": the model " + part.said;
      }
      model["other_kinds"] = others;
    } else {
      model["reason"] = found.status().message();
      model_line += "; none for the CPU (" + found.status().message().substr(0, found.status().message().find('\n')) +
                    "): --fast times the default space in full";
    }
  }

  nlohmann::json backends = nlohmann::json::array();
  for (DeviceKind kind : {DeviceKind::cpu, DeviceKind::cuda}) {
    for (const BackendAvailability& b : compiled_backends(kind)) {
      backends.push_back({{"device", kind == DeviceKind::cpu ? "cpu" : "cuda"},
                          {"name", b.name},
                          {"available", b.available},
                          {"note", b.note}});
    }
  }
  if (args->flag("json")) {
    nlohmann::json out = {{"devices", {device_json(*cpu)}},
                          {"backends", backends},
                          {"cost_model", CostModel::built_in()},
                          {"cpu_cost_model", model}};
    if (!cuda.is_ok()) out["cuda"] = cuda.status().message();
    std::cout << out.dump(2) << "\n";
    return kExitOk;
  }
  const CpuInfo& c = cpu->cpu;
  std::printf("cpu: %s (family %d, model %d)\n", c.model.c_str(), c.family, c.model_number);
  std::printf("  cores: %d logical, %d physical\n", c.logical_cores, c.physical_cores);
  std::printf("  caches: L1d %lld KiB, L2 %lld KiB, L3 %lld MiB\n", (long long)(c.l1d_bytes >> 10),
              (long long)(c.l2_bytes >> 10), (long long)(c.l3_bytes >> 20));
  std::string features;
  for (const std::string& f : c.feature_names()) features += f + " ";
  std::printf("  features: %s\n", features.c_str());
  std::printf("  kernel ISA: %s%s\n", std::string(cpu_isa_name(c.best_isa())).c_str(),
              c.isa_cap.empty() ? "" : (" (capped by GEMMTUNE_CPU_ISA=" + c.isa_cap + ")").c_str());
  std::printf("cuda: %s\n", cuda.is_ok() ? "present" : cuda.status().message().c_str());
  std::printf("cost model: %s\n", model_line.c_str());
  std::printf("backends:\n");
  for (const auto& b : backends) {
    std::printf("  %-5s %-10s %-4s %s\n", b["device"].get<std::string>().c_str(), b["name"].get<std::string>().c_str(),
                b["available"].get<bool>() ? "yes" : "no", b["note"].get<std::string>().c_str());
  }
  return kExitOk;
}

}  // namespace gemmtune::cli
