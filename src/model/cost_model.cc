#include "gemmtune/cost_model.h"

#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "../core/file_text.h"
#include "booster.h"
#include "cost_model_document.h"
#include "fast_top_k.h"
#include "features.h"

#ifndef GEMMTUNE_SOURCE_DIR
#define GEMMTUNE_SOURCE_DIR ""
#endif

namespace gemmtune {

struct CostModel::Impl {
  ModelInfo info;
  std::unique_ptr<Booster> booster;
  std::string booster_bytes;  // XGBoost UBJSON
  // For each feature the model was trained on, its position among the features this build
  // computes (feature_names of the model's backends), then the legacy features it names.
  std::vector<std::size_t> columns;
  std::vector<std::string> legacy;  // is_legacy_feature names, appended in this order
};

namespace {

using nlohmann::json;

bool contains(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : ", ") + item;
  return out.empty() ? "none" : out;
}

// Where shipped models are looked for, in order. $GEMMTUNE_MODEL_DIR, when set, is the only place.
std::vector<std::filesystem::path> model_dirs() {
  std::vector<std::filesystem::path> dirs;
  if (const char* dir = std::getenv("GEMMTUNE_MODEL_DIR"); dir != nullptr && *dir != '\0') return {dir};
  std::error_code ec;
  // build/bin/gemmtune → the tree's data/models.
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) dirs.push_back(exe.parent_path().parent_path().parent_path() / "data" / "models");
  // An installed tree (cmake --install, the .deb): PREFIX/share/gemmtune/models, found from
  // PREFIX/bin/gemmtune or from PREFIX/lib[/arch]/libgemmtune.so as another program (the BLAS
  // drop-in, Python) loaded it, wherever the prefix was moved.
  if (!ec) dirs.push_back(exe.parent_path().parent_path() / "share" / "gemmtune" / "models");
  Dl_info self{};
  if (dladdr(reinterpret_cast<const void*>(&model_dirs), &self) != 0 && self.dli_fname != nullptr) {
    for (std::filesystem::path dir = std::filesystem::path(self.dli_fname).parent_path();
         dir.has_relative_path(); dir = dir.parent_path()) {
      if (dir.filename() == "lib") {
        dirs.push_back(dir.parent_path() / "share" / "gemmtune" / "models");
        break;
      }
    }
  }
  if (std::string(GEMMTUNE_SOURCE_DIR).size() > 0) dirs.push_back(std::filesystem::path(GEMMTUNE_SOURCE_DIR) / "data" / "models");
  return dirs;
}

// Peer libraries whose version string names the machine as well as the build: OpenBLAS the
// core its DYNAMIC_ARCH picked (Haswell on the Zen 5 VM, Prescott on the Intel one).
bool peer_library(const std::string& backend) {
  return backend == "onednn" || backend == "openblas" || backend == "libxsmm" || backend == "cublaslt";
}

// The part of an own backend's version that its configs' order depends on. A version may name,
// after its kernels, parts that cost every config of a problem alike, so that a change of them
// moves all its configs' times together and leaves the model's ranking as it was trained:
// "+pad_copy-<hash>", the copy kernel a padded problem's operands go through before each config
// runs (wgmma_backend_version), and "+handoff-<hash>", how the CPU pool starts its workers and
// waits for them (GEMMTUNE_CPU_HANDOFF_SOURCES in CMakeLists.txt). Any other part is ranked.
std::string ranked_part(std::string version) {
  for (std::string_view unranked : {std::string_view("+pad_copy-"), std::string_view("+handoff-")}) {
    const std::size_t at = version.find(unranked);
    if (at == std::string::npos) continue;
    const std::size_t next = version.find('+', at + 1);
    version.erase(at, next == std::string::npos ? std::string::npos : next - at);
  }
  return version;
}

// The first of gemmtune's own backends the model was trained on at a version this build does
// not have, as "backend B version V, this build has W"; empty where every one matches (in the
// part that orders its configs, ranked_part). Its kernels changed, so its rankings no longer
// hold. The peer libraries are not compared: a peer at another version is set aside where the
// model is bound (CostModel::for_device).
std::string own_version_mismatch(const ModelInfo& info, const std::map<std::string, std::string>& versions) {
  for (const auto& [backend, version] : info.backend_versions) {
    auto now = versions.find(backend);
    if (now != versions.end() && ranked_part(now->second) != ranked_part(version) && !peer_library(backend)) {
      return "backend " + backend + " version " + version + ", this build has " + now->second;
    }
  }
  return "";
}

// The peer libraries the model ranks that `versions` lists at another version than it was
// trained on. None for a model across devices: its peers were measured at each device's
// versions, and it holds the first device's alone.
std::vector<std::string> changed_peers(const ModelInfo& info, const std::map<std::string, std::string>& versions) {
  std::vector<std::string> changed;
  if (!info.devices.empty()) return changed;
  for (const auto& [backend, version] : info.backend_versions) {
    auto now = versions.find(backend);
    if (now == versions.end() || now->second == version || !peer_library(backend)) continue;
    if (std::find(info.backends.begin(), info.backends.end(), backend) != info.backends.end()) changed.push_back(backend);
  }
  return changed;
}

// How far apart two CPU classes ("cpu/<isa>/<n>t") are, for a model of one standing in on the
// other: first the thread counts (|log2| of their ratio), then the ISA levels. On the held-out
// sweeps of three classes a model sharing the thread count or the ISA ranked to 0.95-0.97 of the
// exhaustive best at k = 5, one sharing neither to 0.90-0.91, and the Zen 3 model (avx2, 2
// threads) served the Emerald Rapids VM (avx512_bf16, 2 threads) better than the 16-thread
// Xeon's (avx512_bf16): 0.974 against 0.962 (bench/results/2026-11-29e-cpu-intel-emr-2t.md).
// nullopt where either is not a CPU class.
std::optional<std::pair<double, int>> cpu_class_distance(const std::string& a, const std::string& b) {
  const auto pa = cpu_class_parts(a), pb = cpu_class_parts(b);
  if (!pa || !pb) return std::nullopt;
  return std::pair{std::fabs(std::log2(double(pa->second) / double(pb->second))), std::abs(pa->first - pb->first)};
}

// The CPU features named in a fingerprint ("cpu|<name>|family=F,model=M|<features>|<n>t|l2=…"):
// the field before the thread count; empty where there is none (a GPU's).
std::string fingerprint_features(const std::string& fingerprint) {
  std::vector<std::string> fields;
  for (std::size_t begin = 0; begin <= fingerprint.size();) {
    std::size_t end = fingerprint.find('|', begin);
    if (end == std::string::npos) end = fingerprint.size();
    fields.push_back(fingerprint.substr(begin, end - begin));
    begin = end + 1;
  }
  for (std::size_t i = 1; i < fields.size(); ++i) {
    const std::string& f = fields[i];
    if (f.size() >= 2 && f.back() == 't' && std::all_of(f.begin(), f.end() - 1, [](char c) { return c >= '0' && c <= '9'; })) {
      return fields[i - 1];
    }
  }
  return "";
}

// A model found so far to stand in, and whether its CPU has the device's features (named in
// both fingerprints alike). Among the models of the class (or of the nearest classes, at one
// distance) one of a CPU with the device's features goes before the first in file order.
struct StandIn {
  std::string file;
  bool shares_features = false;
  // Whether a model whose CPU shares the features or not (`shares`) takes this one's place.
  bool yields_to(bool shares) const { return file.empty() || (shares && !shares_features); }
};

// Whether the CPU classes a model was trained across (its device_class, "A + B + ...") span
// `device_class`: its ISA level and its thread count each within their range. Within it the
// device's features fall between values the trees split on, and such a model ranked a left-out
// class to 0.970 of the exhaustive best at k = 5 where the nearest class's read 0.943; outside,
// where the trees have nothing to go on, the nearest class's was as good or 0.004 ahead in two
// of three cases (bench/results/2026-11-29h-cpu-model-across-classes.md).
bool classes_span(const std::string& trained_classes, const std::string& device_class) {
  const auto device = cpu_class_parts(device_class);
  if (!device) return false;
  std::pair<int, int> low{std::numeric_limits<int>::max(), std::numeric_limits<int>::max()}, high{-1, -1};
  for (std::size_t begin = 0; begin <= trained_classes.size();) {
    std::size_t end = trained_classes.find(" + ", begin);
    if (end == std::string::npos) end = trained_classes.size();
    const auto parts = cpu_class_parts(trained_classes.substr(begin, end - begin));
    if (!parts) return false;
    low = {std::min(low.first, parts->first), std::min(low.second, parts->second)};
    high = {std::max(high.first, parts->first), std::max(high.second, parts->second)};
    begin = end + 3;
  }
  return low.first <= device->first && device->first <= high.first && low.second <= device->second &&
         device->second <= high.second;
}

// The features this build computes for a model, in order: those of its backends, then, for a
// model trained across devices, the device's (predict appends them after append_features').
std::vector<std::string> computed_feature_names(const ModelInfo& info) {
  std::vector<std::string> names = feature_names(info.backends);
  if (!info.devices.empty()) {
    for (const std::string& name : device_feature_names()) names.push_back(name);
  }
  return names;
}

}  // namespace

CostModel::CostModel(std::shared_ptr<const Impl> impl, std::vector<float> device_row)
    : impl_(std::move(impl)), device_row_(std::move(device_row)) {}
CostModel::~CostModel() = default;

bool CostModel::built_in() { return booster_built_in(); }

std::string CostModel::not_built_in_reason() { return booster_absent_message(); }

const ModelInfo& CostModel::info() const { return impl_->info; }

Result<std::shared_ptr<const CostModel>> CostModel::train(const std::vector<SweepData>& sweeps,
                                                         const std::vector<std::string>& names,
                                                         const TrainOptions& options, bool fit_fast_top_k,
                                                         bool across_devices) {
  if (!booster_built_in()) return unsupported(booster_absent_message());
  if (sweeps.empty()) return invalid_argument("no sweep to train on");
  const SweepMeta& meta = sweeps.front().meta;
  // Each sweep's device features, where the model is trained across devices.
  std::vector<std::vector<float>> device_rows(sweeps.size());
  auto impl = std::make_unique<Impl>();
  ModelInfo& info = impl->info;
  info.device = meta.device;
  info.device_class = meta.device_class;
  for (std::size_t i = 0; i < sweeps.size(); ++i) {
    const std::string which = i < names.size() ? names[i] : "sweep " + std::to_string(i);
    if (across_devices) {
      auto row = device_features(sweeps[i].meta.device, sweeps[i].meta.device_class);
      if (!row.is_ok()) return invalid_argument(which + ": " + row.status().message());
      device_rows[i] = std::move(row).value();
      if (std::find(info.devices.begin(), info.devices.end(), sweeps[i].meta.device) == info.devices.end()) {
        info.devices.push_back(sweeps[i].meta.device);
        if (i > 0) {
          info.device += " + " + sweeps[i].meta.device;
          info.device_class += " + " + sweeps[i].meta.device_class;
        }
      }
    }
    if (i == 0) continue;
    if (!across_devices && sweeps[i].meta.device != meta.device) {
      return invalid_argument(which + " was measured on " + sweeps[i].meta.device + ", the first on " + meta.device +
                              ": a model is trained on one device (or across devices, on purpose)");
    }
    // Across devices only the peer libraries may differ: OpenBLAS names the core it runs.
    for (const auto& [backend, version] : meta.backend_versions) {
      if (across_devices && peer_library(backend)) continue;
      const auto other = sweeps[i].meta.backend_versions.find(backend);
      if (other == sweeps[i].meta.backend_versions.end() || other->second != version) {
        return invalid_argument(which + " was measured with another version of backend " + backend + " than the first");
      }
    }
    if (sweeps[i].meta.backend_versions.size() != meta.backend_versions.size()) {
      return invalid_argument(which + " was measured with other backends than the first");
    }
  }
  if (info.devices.size() == 1) {
    return invalid_argument("training across devices needs the sweeps of two devices or more; these are all of " +
                            info.devices.front());
  }
  info.training_data = names;
  info.params = options;
  std::set<std::string> backends, kinds, shapes;
  for (const SweepData& sweep : sweeps) {
    for (const SweepRow& row : sweep.rows) {
      if (row.measured.status != ChoiceStatus::ok || row.measured.time_us <= 0) continue;
      backends.insert(row.measured.backend);
      kinds.insert(problem_kind(row.problem));
      shapes.insert(row.problem.to_string());
    }
  }
  if (backends.empty()) return invalid_argument("the sweeps hold no correct, timed row to train on");
  info.backends.assign(backends.begin(), backends.end());
  for (const std::string& backend : info.backends) {
    auto version = meta.backend_versions.find(backend);
    info.backend_versions[backend] = version == meta.backend_versions.end() ? "" : version->second;
  }
  info.problem_kinds.assign(kinds.begin(), kinds.end());
  info.training_shapes.assign(shapes.begin(), shapes.end());
  info.features = computed_feature_names(info);
  for (std::size_t i = 0; i < info.features.size(); ++i) impl->columns.push_back(i);

  std::vector<float> features, labels;
  for (std::size_t i = 0; i < sweeps.size(); ++i) {
    for (const SweepRow& row : sweeps[i].rows) {
      if (row.measured.status != ChoiceStatus::ok || row.measured.time_us <= 0) continue;
      GEMMTUNE_ASSIGN_OR_RETURN(Problem problem, row.problem.problem());
      append_features(problem, row.measured.backend, row.measured.config, info.backends, features);
      features.insert(features.end(), device_rows[i].begin(), device_rows[i].end());
      labels.push_back(float(std::log(row.measured.time_us)));
    }
  }
  const std::size_t rows = labels.size(), cols = info.features.size();
  GEMMTUNE_ASSIGN_OR_RETURN(impl->booster, train_booster(features, rows, cols, labels, options));
  GEMMTUNE_ASSIGN_OR_RETURN(impl->booster_bytes, impl->booster->save());
  GEMMTUNE_ASSIGN_OR_RETURN(std::vector<float> fitted, impl->booster->predict(features, rows, cols));
  double squared = 0;
  for (std::size_t i = 0; i < rows; ++i) squared += double(fitted[i] - labels[i]) * double(fitted[i] - labels[i]);
  info.training_rows = std::int64_t(rows);
  info.training_rmse = std::sqrt(squared / double(rows));
  info.created_unix =
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  if (fit_fast_top_k && !across_devices) {
    GEMMTUNE_ASSIGN_OR_RETURN(FastTopKFit fit, gemmtune::fit_fast_top_k(sweeps, options));
    info.fast_top_k = fit.k;
    info.fast_fit_quality = fit.quality;
    info.fast_fit_time_fraction = fit.time_fraction;
  }
  return std::shared_ptr<const CostModel>(new CostModel(std::move(impl), {}));
}

Result<ModelInfo> CostModel::read_info(const std::string& path) {
  GEMMTUNE_ASSIGN_OR_RETURN(std::string text, read_file_text(path, "cost model"));
  GEMMTUNE_ASSIGN_OR_RETURN(CostModelDocument document, parse_cost_model_document(text, path, /*with_booster=*/false));
  return document.info;
}

Result<std::shared_ptr<const CostModel>> CostModel::load(const std::string& path) {
  GEMMTUNE_ASSIGN_OR_RETURN(std::string text, read_file_text(path, "cost model"));
  GEMMTUNE_ASSIGN_OR_RETURN(CostModelDocument document, parse_cost_model_document(text, path, /*with_booster=*/true));
  auto impl = std::make_unique<Impl>();
  impl->info = std::move(document.info);
  impl->booster_bytes = std::move(document.booster_bytes);
  if (!booster_built_in()) return unsupported("cannot use cost model " + path + ": " + booster_absent_message());
  // The trees index features by position, so each of the model's features is looked up by
  // name among those this build computes. A config field added since the model was trained is
  // a feature it never split on (every row it saw had the field unset), so it is left out; a
  // feature the model needs and this build lacks (a field renamed or removed) makes it unusable.
  const std::vector<std::string> computed = computed_feature_names(impl->info);
  for (const std::string& feature : impl->info.features) {
    const auto at = std::find(computed.begin(), computed.end(), feature);
    if (at == computed.end() && is_legacy_feature(feature)) {
      // Fed after the computed features (predict appends the legacy ones in this order).
      impl->columns.push_back(computed.size() + impl->legacy.size());
      impl->legacy.push_back(feature);
      continue;
    }
    if (at == computed.end()) {
      return Status(ErrorCode::unsupported, "cost model " + path + " was trained on feature '" + feature +
                                                "', which this build does not compute (it computes [" +
                                                joined(computed) + "]); retrain it (`gemmtune model train`)");
    }
    impl->columns.push_back(std::size_t(at - computed.begin()));
  }
  auto booster = load_booster(impl->booster_bytes);
  if (!booster.is_ok()) {
    return Status(ErrorCode::corrupt_data, "cost model " + path + ": its trees do not load: " + booster.status().message());
  }
  impl->booster = std::move(booster).value();
  return std::shared_ptr<const CostModel>(new CostModel(std::move(impl), {}));
}

Status CostModel::save(const std::string& path) const {
  return write_cost_model_document(path, impl_->info, impl_->booster_bytes);
}

Result<int> CostModel::upgrade_file(const std::string& path) {
  GEMMTUNE_ASSIGN_OR_RETURN(std::string text, read_file_text(path, "cost model"));
  GEMMTUNE_ASSIGN_OR_RETURN(CostModelDocument document, parse_cost_model_document(text, path, /*with_booster=*/true));
  GEMMTUNE_RETURN_IF_ERROR(write_cost_model_document(path, document.info, document.booster_bytes));
  return document.version;
}

Status CostModel::check_trained_on(const std::string& device, const std::map<std::string, std::string>& versions) const {
  const ModelInfo& info = impl_->info;
  const bool one_of = std::find(info.devices.begin(), info.devices.end(), device) != info.devices.end();
  if (device != info.device && !one_of) {
    return unsupported("the cost model was trained on device '" + info.device + "', this is '" + device + "'");
  }
  if (const std::string mismatch = own_version_mismatch(info, versions); !mismatch.empty()) {
    return unsupported("the cost model was trained on " + mismatch + " (its kernels changed; sweep and train again)");
  }
  return Status::ok();
}

Status CostModel::applies_to(const Problem& problem) const {
  const std::string kind = problem_kind(problem);
  for (const std::string& known : impl_->info.problem_kinds) {
    if (known == kind) return Status::ok();
  }
  return unsupported("the cost model has no data for " + kind + " problems (it knows " +
                     joined(impl_->info.problem_kinds) + ")");
}

bool CostModel::ranks(std::string_view backend) const {
  if (std::find(set_aside_.begin(), set_aside_.end(), backend) != set_aside_.end()) return false;
  for (const std::string& known : impl_->info.backends) {
    if (known == backend) return true;
  }
  return false;
}

Result<std::vector<double>> CostModel::predict(const Problem& problem, const std::vector<ModelChoice>& choices) const {
  if (choices.empty()) return std::vector<double>{};
  if (!impl_->info.devices.empty() && device_row_.empty()) {
    return invalid_argument("the cost model was trained across devices (" + impl_->info.device_class +
                            "): it ranks for a device it is bound to (CostModel::for_device)");
  }
  std::vector<float> features, computed;
  features.reserve(choices.size() * impl_->columns.size());
  for (const ModelChoice& choice : choices) {
    computed.clear();
    append_features(problem, choice.backend, choice.config, impl_->info.backends, computed);
    computed.insert(computed.end(), device_row_.begin(), device_row_.end());
    for (const std::string& name : impl_->legacy) computed.push_back(legacy_feature(name, choice.backend, choice.config));
    for (std::size_t column : impl_->columns) features.push_back(computed[column]);
  }
  GEMMTUNE_ASSIGN_OR_RETURN(std::vector<float> predicted,
                            impl_->booster->predict(features, choices.size(), impl_->columns.size()));
  return std::vector<double>(predicted.begin(), predicted.end());
}

Result<std::shared_ptr<const CostModel>> CostModel::for_device(const std::string& device, const std::string& device_class,
                                                              const std::map<std::string, std::string>& versions) const {
  std::vector<float> row;
  if (!impl_->info.devices.empty()) {
    auto features = device_features(device, device_class);
    if (!features.is_ok()) return features.status();
    row = std::move(features).value();
  }
  std::shared_ptr<CostModel> bound(new CostModel(impl_, std::move(row)));
  for (const std::string& backend : changed_peers(impl_->info, versions)) {
    bound->set_aside_.push_back(backend);
    bound->set_aside_notes_.push_back(backend + " (trained on " + impl_->info.backend_versions.at(backend) +
                                      ", this build has " + versions.at(backend) + ")");
  }
  return std::shared_ptr<const CostModel>(std::move(bound));
}

ModelFit model_fit(const ModelInfo& info, const std::string& device, const std::string& device_class) {
  if (!info.devices.empty()) return ModelFit::across_classes;
  if (info.device_class != device_class) return ModelFit::nearest_class;
  return info.device == device ? ModelFit::this_device : ModelFit::device_of_class;
}

std::string model_named(const ModelInfo& info, ModelFit fit) {
  return std::string(model_fit_name(fit)) + " ('" + info.device + "')";
}

std::string_view model_fit_name(ModelFit fit) {
  switch (fit) {
    case ModelFit::this_device: return "trained on this device";
    case ModelFit::device_of_class: return "trained on another device of its class";
    case ModelFit::across_classes: return "trained across classes that span it";
    case ModelFit::nearest_class: return "trained on the nearest class";
  }
  return "?";
}

Result<std::shared_ptr<const CostModel>> load_cost_model_for(const std::string& path, const DeviceInfo& device,
                                                             const std::map<std::string, std::string>& versions) {
  GEMMTUNE_ASSIGN_OR_RETURN(auto model, CostModel::load(path));
  Status trained_on = model->check_trained_on(device.fingerprint(), versions);
  if (!trained_on.is_ok()) return Status(trained_on.code(), path + ": " + trained_on.message());
  return model->for_device(device.fingerprint(), device.device_class(), versions);
}

namespace {

// A model file as the memos below know it: rewritten (another inode, size or change time), it
// is another file.
struct FileIdentity {
  dev_t device;
  ino_t inode;
  off_t size;
  std::int64_t modified_ns, changed_ns;
  bool operator==(const FileIdentity&) const = default;
};

std::optional<FileIdentity> identity_of(const std::filesystem::path& file) {
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0) return std::nullopt;
  return FileIdentity{st.st_dev, st.st_ino, st.st_size,
                      std::int64_t(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec,
                      std::int64_t(st.st_ctim.tv_sec) * 1'000'000'000 + st.st_ctim.tv_nsec};
}

// What reading a model file gave, once a process per file: a session looks up its model, then
// one per kind of problem that model lacks, each reading every file of the model folders (some
// 2 MB of JSON each), and loading the one it takes.
template <typename T>
class FileMemo {
 public:
  template <typename Read>
  T get(const std::filesystem::path& file, const Read& read) {
    const std::optional<FileIdentity> id = identity_of(file);
    if (id) {
      std::lock_guard lock(mutex_);
      const auto it = seen_.find(file.string());
      if (it != seen_.end() && it->second.first == *id) return it->second.second;
    }
    T value = read();
    if (id) {
      std::lock_guard lock(mutex_);
      seen_.insert_or_assign(file.string(), std::pair<FileIdentity, T>(*id, value));
    }
    return value;
  }

 private:
  std::mutex mutex_;
  std::map<std::string, std::pair<FileIdentity, T>> seen_;
};

Result<ModelInfo> read_info_once(const std::filesystem::path& file) {
  static auto* memo = new FileMemo<Result<ModelInfo>>();  // never destroyed, as load_once's
  return memo->get(file, [&] { return CostModel::read_info(file.string()); });
}

// A loaded model is immutable (for_device binds a copy), so one load serves every lookup.
// The memo is never destroyed: at exit its boosters would be freed after XGBoost's own statics
// (a double free).
Result<std::shared_ptr<const CostModel>> load_once(const std::filesystem::path& file) {
  static auto* memo = new FileMemo<Result<std::shared_ptr<const CostModel>>>();
  return memo->get(file, [&] { return CostModel::load(file.string()); });
}

}  // namespace

Result<std::shared_ptr<const CostModel>> find_cost_model(const std::string& fingerprint,
                                                         const std::map<std::string, std::string>& versions,
                                                         const std::string& device_class,
                                                         const std::string& problem_kind) {
  std::string seen;
  // Loaded only where no model of this device with every version matching is found: the first
  // model of another device of this class whose backends' versions match, else the first trained
  // across devices whose classes span this one's (classes_span), else the first of this device,
  // then of its class, with a peer library at another version (which it sets aside), else the one of
  // the nearest other CPU class (cpu_class_distance). A peer's version names the machine as
  // well as the build (OpenBLAS's core), so the model across classes, which takes the device's
  // features, goes first: on the Granite Rapids VM, where the Emerald Rapids VM's model (of the
  // same fingerprint then, before it named cpuid's model) differs in OpenBLAS's core alone, that
  // one ranked 40 + 40 held-out shapes to 0.971 of the exhaustive best at its k of 5 (0.979 at
  // 10), the model across classes to 0.987 at 10 (bench/results/2026-11-30h-cpu-intel-gnr-2t-model.md).
  std::string across, own_peers_changed;
  StandIn of_class, class_peers_changed, of_nearest_class;
  // The distance of of_nearest_class; none taken yet is farther than any (a plain pair: GCC 12
  // warned of an optional pair as maybe uninitialized).
  std::pair<double, int> nearest{std::numeric_limits<double>::infinity(), 0};
  // The features decide between models of one class (StandIn): the Emerald Rapids VM, with
  // AVX-512 FP16 and AMX, is served in bf16 by the Granite Rapids VM's model, which ranks the AMX
  // family; a CPU without them by the Zen 5 VM's, whose order of the other kernels holds there
  // (the Granite Rapids model ranked bf16 on the Zen 5 VM to 0.85-0.87 of the exhaustive best,
  // the Zen 5 model to 0.98: bench/results/2026-12-01g-cpu-amd-zen5.md).
  const std::string features = fingerprint_features(fingerprint);
  for (const std::filesystem::path& dir : model_dirs()) {
    std::error_code ec;
    std::vector<std::filesystem::path> files;
    for (const auto& item : std::filesystem::directory_iterator(dir, ec)) {
      if (item.path().extension() == ".json") files.push_back(item.path());
    }
    std::sort(files.begin(), files.end());
    for (const std::filesystem::path& file : files) {
      auto info = read_info_once(file);
      if (!info.is_ok()) continue;  // not a model (or a damaged one): never ours
      if (!problem_kind.empty() && !contains(info->problem_kinds, problem_kind)) {
        seen += "\n  " + file.string() + ": no data for " + problem_kind + " problems";
        continue;
      }
      if (!info->devices.empty()) {
        seen += "\n  " + file.string() + ": trained across " + info->device_class;
        if (device_class.empty() || !across.empty()) continue;
        if (!classes_span(info->device_class, device_class)) {
          seen += ", which do not span " + device_class;
        } else if (const std::string mismatch = own_version_mismatch(*info, versions); !mismatch.empty()) {
          seen += " (trained on " + mismatch + ")";
        } else {
          across = file.string();
        }
        continue;
      }
      if (info->device != fingerprint) {
        seen += "\n  " + file.string() + ": trained on '" + info->device + "'";
        if (device_class.empty()) continue;
        const auto distance = cpu_class_distance(info->device_class, device_class);
        const bool shares_features = !features.empty() && fingerprint_features(info->device) == features;
        const bool wanted = info->device_class == device_class
                                ? of_class.yields_to(shares_features)
                                : distance && (*distance < nearest ||
                                               (*distance == nearest && of_nearest_class.yields_to(shares_features)));
        if (!wanted) continue;
        const std::string mismatch = own_version_mismatch(*info, versions);
        if (!mismatch.empty()) {
          seen += " (trained on " + mismatch + ")";
        } else if (info->device_class == device_class) {
          if (changed_peers(*info, versions).empty()) {
            of_class = {file.string(), shares_features};
          } else if (class_peers_changed.yields_to(shares_features)) {
            class_peers_changed = {file.string(), shares_features};
          }
        } else {
          of_nearest_class = {file.string(), shares_features};
          nearest = *distance;
        }
        continue;
      }
      auto model = load_once(file);
      Status usable = model.is_ok() ? (*model)->check_trained_on(fingerprint, versions) : model.status();
      if (!usable.is_ok()) {
        seen += "\n  " + file.string() + ": " + usable.message();
      } else if (changed_peers((*model)->info(), versions).empty()) {
        return (*model)->for_device(fingerprint, device_class, versions);
      } else if (own_peers_changed.empty()) {
        own_peers_changed = file.string();
      }
    }
  }
  for (const std::string& stand_in :
       {of_class.file, across, own_peers_changed, class_peers_changed.file, of_nearest_class.file}) {
    if (stand_in.empty()) continue;
    auto model = load_once(stand_in);
    if (model.is_ok()) return (*model)->for_device(fingerprint, device_class, versions);
    seen += "\n  " + stand_in + ": " + model.status().message();
  }
  std::string dirs;
  for (const auto& dir : model_dirs()) dirs += (dirs.empty() ? "" : ", ") + dir.string();
  return not_found("no cost model for this device ('" + fingerprint + "') in " + dirs +
                   " (GEMMTUNE_MODEL_DIR, or --model FILE)" + seen);
}

std::map<std::string, std::shared_ptr<const CostModel>> find_cost_models_for_other_kinds(
    const ModelInfo& primary, const std::string& fingerprint, const std::map<std::string, std::string>& versions,
    const std::string& device_class) {
  // The kinds the model folders know for devices of this one's kind ("cpu/…", "cuda/…"): a GPU
  // model's kinds are no use to a CPU, and looking for them would read every model again.
  const std::string device_kind = device_class.substr(0, device_class.find('/') + 1);
  std::set<std::string> wanted;
  for (const std::filesystem::path& dir : model_dirs()) {
    std::error_code ec;
    for (const auto& item : std::filesystem::directory_iterator(dir, ec)) {
      if (item.path().extension() != ".json") continue;
      auto info = read_info_once(item.path());
      if (!info.is_ok() || device_kind.empty() || info->device_class.rfind(device_kind, 0) != 0) continue;
      for (const std::string& kind : info->problem_kinds) {
        if (!contains(primary.problem_kinds, kind)) wanted.insert(kind);
      }
    }
  }
  // Each kind gets what find_cost_model finds for it alone (a model of the class that knows
  // one kind comes before a stand-in that knows two); the files are read and loaded once.
  std::map<std::string, std::shared_ptr<const CostModel>> found;
  for (const std::string& kind : wanted) {
    auto model = find_cost_model(fingerprint, versions, device_class, kind);
    if (model.is_ok()) found[kind] = *model;
  }
  return found;
}

}  // namespace gemmtune
