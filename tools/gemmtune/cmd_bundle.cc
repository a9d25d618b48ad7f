// gemmtune bundle: carries a machine's picks, and the GPU kernels they compiled, to a deployed
// program, so that its first calls neither tune nor compile. A bundle is a folder:
//   picks.json   a lookup table of the store's picks, each used without tuning (mode "use")
//   cubins/      the compiled GPU kernels those picks run (the cubin cache's own files)
//   bundle.json  what it holds and where it was made
// A deployed program points at it: GEMMTUNE_LUT=DIR/picks.json GEMMTUNE_CUBIN_CACHE=DIR/cubins.
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "commands.h"
#include "common.h"
#include "gemmtune/kernel_cache.h"
#include "gemmtune/lut.h"

namespace gemmtune::cli {
namespace {

constexpr const char* kBundleFormat = "gemmtune-bundle";
constexpr int kBundleVersion = 1;  // 1: picks.json, cubins/, bundle.json

constexpr const char* kBundleSummary =
    "Carries this machine's picks to a deployed program, which then neither tunes nor compiles:\n"
    "  create DIR   writes DIR/picks.json, a lookup table of every pick the store holds for the\n"
    "               device, used without tuning; prepares each pick once, so the GPU kernels they\n"
    "               run are compiled into DIR/cubins (with the check each passed), or copied from\n"
    "               the kernel cache where they were compiled before; DIR/bundle.json\n"
    "               says what it holds. DIR must be empty, absent or an earlier bundle (replaced).\n"
    "  show DIR     what a bundle holds.\n"
    "The program then runs with GEMMTUNE_LUT=DIR/picks.json GEMMTUNE_CUBIN_CACHE=DIR/cubins (a\n"
    "fingerprint must match; --device-class makes the picks serve every machine of the class).\n"
    "A bundle installed read-only goes after a cache the program may write:\n"
    "GEMMTUNE_CUBIN_CACHE=$HOME/.cache/gemmtune/cubins:DIR/cubins (the first is written, the rest read).";

std::vector<OptionSpec> bundle_specs() {
  std::vector<OptionSpec> specs = store_options();
  specs.push_back({"device", true, "--device D             whose picks: cpu (default) or cuda[:N]"});
  specs.push_back({"device-class", false, "--device-class         the picks name the device class, not the fingerprint"});
  specs.push_back({"json", false, "--json                 show: print the manifest as JSON"});
  return specs;
}

namespace fs = std::filesystem;

// DIR may be written: absent, empty, or an earlier bundle (whose parts are removed first).
Status make_room(const fs::path& dir) {
  std::error_code ec;
  if (!fs::exists(dir, ec)) {
    fs::create_directories(dir, ec);
    return ec ? Status(ErrorCode::io_error, "cannot create " + dir.string() + ": " + ec.message()) : Status::ok();
  }
  if (!fs::is_directory(dir, ec)) return invalid_argument(dir.string() + " is not a folder");
  const bool empty = fs::is_empty(dir, ec);
  if (!empty && !fs::exists(dir / "bundle.json", ec)) {
    return invalid_argument(dir.string() + " holds files and is not a bundle (no bundle.json): give an empty or new folder");
  }
  for (const char* part : {"bundle.json", "picks.json", "cubins"}) fs::remove_all(dir / part, ec);
  return ec ? Status(ErrorCode::io_error, "cannot clear " + dir.string() + ": " + ec.message()) : Status::ok();
}

std::size_t files_in(const fs::path& dir, const std::string& extension) {
  std::error_code ec;
  std::size_t count = 0;
  for (const auto& item : fs::directory_iterator(dir, ec)) count += item.path().extension() == extension;
  return count;
}

int create(const Args& args, const fs::path& dir) {
  // The kernel cache is named by a ':'-separated list (GEMMTUNE_CUBIN_CACHE): a folder whose
  // path holds ':' cannot be one of its entries.
  if (dir.string().find(':') != std::string::npos) {
    return fail(invalid_argument("bundle folder '" + dir.string() +
                                 "' holds ':', which GEMMTUNE_CUBIN_CACHE separates folders by; choose another"));
  }
  auto store = store_options_from(args);
  if (!store.is_ok()) return fail(store.status());
  auto device = find_device(args.get("device", "cpu"));
  if (!device.is_ok()) return fail(device.status());
  LutExportOptions picks;
  picks.mode = LutMode::use;
  picks.device = device->fingerprint();
  if (args.flag("device-class")) picks.device_class = device->device_class();
  auto exported = export_lut(*store, picks);
  if (!exported.is_ok()) return fail(exported.status());
  if (exported->table.entries.empty()) {
    return fail(not_found("the store (" + store->resolved_path() + ") holds no pick of this device (" + device->fingerprint() +
                          "): tune first (gemmtune tune-set)"));
  }
  if (Status room = make_room(dir); !room.is_ok()) return fail(room);
  const fs::path lut_path = dir / "picks.json";
  // Absolute, so that the cache list and the deploy line hold wherever they are used from.
  const fs::path cubins = fs::absolute(dir / "cubins");
  std::error_code ec;
  fs::create_directories(cubins, ec);
  if (ec) return fail(Status(ErrorCode::io_error, "cannot create " + cubins.string() + ": " + ec.message()));
  if (Status saved = exported->table.save(lut_path.string()); !saved.is_ok()) return fail(saved);

  // Each pick prepared once as the deployed program will: from the table, without tuning, with
  // the kernel cache in the bundle (the worker process this starts inherits it too). The
  // user's cache follows it, read only: a kernel compiled before is copied in, not compiled
  // again (a CUTLASS object costs nvcc about a minute).
  std::string cache_dirs = cubins.string();
  for (const std::string& dir : kernel_cache_dirs()) {
    std::error_code same_ec;
    if (!fs::equivalent(dir, cubins, same_ec)) cache_dirs += ":" + dir;  // the bundle's own: not twice
  }
  setenv("GEMMTUNE_CUBIN_CACHE", cache_dirs.c_str(), 1);
  SessionOptions options;
  options.device = device->name;
  options.store.mode = StoreMode::off;
  options.lut_path = lut_path.string();
  auto session = Session::create(options);
  if (!session.is_ok()) return fail(session.status());
  int prepared = 0, failed = 0;
  std::int64_t compiled = 0;
  LookupTable kept;
  for (const LutEntry& entry : exported->table.entries) {
    auto key = ProblemKey::parse(entry.problem);
    Result<Problem> problem = key.is_ok() ? key->problem() : Result<Problem>(key.status());
    Result<TuneReport> report = problem.is_ok() ? (*session)->tune_or_load(*problem) : Result<TuneReport>(problem.status());
    const bool used = report.is_ok() && report->best_choice() != nullptr &&
                      report->best_choice()->backend == entry.configs.front().backend &&
                      report->best_choice()->config == entry.configs.front().config;
    if (!used) {
      ++failed;
      std::fprintf(stderr, "gemmtune: %s: the pick %s %s %s; left out of the bundle\n", entry.problem.c_str(),
                   entry.configs.front().backend.c_str(), entry.configs.front().config.to_string().c_str(),
                   report.is_ok() ? "was not what the table gave (it failed to prepare)" : report.status().message().c_str());
      continue;
    }
    ++prepared;
    compiled += report->compilations;
    kept.entries.push_back(entry);
  }
  if (failed > 0) {
    if (Status saved = kept.save(lut_path.string()); !saved.is_ok()) return fail(saved);
  }
  const std::size_t cubin_files = files_in(cubins, ".cubin");
  if (cubin_files == 0) fs::remove(cubins, ec);  // a CPU's kernels are in the library
  const nlohmann::json manifest = {{"format", kBundleFormat},
                                   {"version", kBundleVersion},
                                   {"device", device->fingerprint()},
                                   {"device_class", device->device_class()},
                                   {"picks_name", args.flag("device-class") ? "device_class" : "device"},
                                   {"picks", prepared},
                                   {"left_out", failed},
                                   {"cubins", cubin_files},
                                   {"compiled_now", compiled},
                                   {"backend_versions", (*session)->backend_versions()},
                                   {"created_unix", std::int64_t(std::time(nullptr))}};
  if (Status written = replace_file((dir / "bundle.json").string(), manifest.dump(2) + "\n"); !written.is_ok()) {
    return fail(written);
  }
  std::printf("bundle %s: %d picks of %s (%s), %zu compiled kernels%s\n", dir.c_str(), prepared, device->name.c_str(),
              device->device_class().c_str(), cubin_files,
              failed ? (", " + std::to_string(failed) + " left out (above)").c_str() : "");
  std::printf("deploy it with: GEMMTUNE_LUT=%s%s\n", lut_path.c_str(),
              cubin_files ? (" GEMMTUNE_CUBIN_CACHE=" + cubins.string()).c_str() : "");
  return failed ? kExitFailed : kExitOk;
}

int show(const Args& args, const fs::path& dir) {
  std::ifstream in(dir / "bundle.json");
  if (!in) return fail(not_found((dir / "bundle.json").string() + " not found: not a bundle"));
  nlohmann::json manifest = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (manifest.is_discarded() || !manifest.is_object() || manifest.value("format", "") != kBundleFormat) {
    return fail(Status(ErrorCode::corrupt_data, (dir / "bundle.json").string() + " is not a gemmtune bundle manifest"));
  }
  if (manifest.value("version", 0) != kBundleVersion) {
    return fail(unsupported((dir / "bundle.json").string() + ": bundle version " + std::to_string(manifest.value("version", 0)) +
                            ", this gemmtune reads " + std::to_string(kBundleVersion)));
  }
  auto table = LookupTable::load((dir / "picks.json").string());
  if (!table.is_ok()) return fail(table.status());
  const std::size_t cubins = files_in(dir / "cubins", ".cubin");
  manifest["picks_found"] = table->entries.size();
  manifest["cubins_found"] = cubins;
  if (args.flag("json")) {
    std::cout << manifest.dump(2) << "\n";
  } else {
    std::printf("bundle %s: %zu picks for %s (%s), %zu compiled kernels\n", dir.c_str(), table->entries.size(),
                manifest.value("device", "").c_str(), manifest.value("device_class", "").c_str(), cubins);
  }
  // What the manifest says and what is there must agree: a bundle copied in part is damaged.
  if (table->entries.size() != manifest.value("picks", std::size_t(0)) || cubins != manifest.value("cubins", std::size_t(0))) {
    return fail(Status(ErrorCode::corrupt_data, dir.string() + ": the manifest lists " +
                                                    std::to_string(manifest.value("picks", 0)) + " picks and " +
                                                    std::to_string(manifest.value("cubins", 0)) + " kernels, the folder holds " +
                                                    std::to_string(table->entries.size()) + " and " + std::to_string(cubins)));
  }
  return kExitOk;
}

}  // namespace

int run_bundle(int argc, char** argv) {
  const std::vector<OptionSpec> specs = bundle_specs();
  if (asks_for_help(argc, argv)) {
    std::cout << usage("bundle create|show DIR", kBundleSummary, specs);
    return kExitOk;
  }
  if (argc < 4) return fail(invalid_argument("bundle needs a subcommand and a folder: create DIR or show DIR"));
  const std::string sub = argv[2];
  if (sub != "create" && sub != "show") {
    return fail(invalid_argument("bundle: unknown subcommand '" + sub + "' (create DIR, show DIR)"));
  }
  auto args = Args::parse("bundle " + sub, specs, argc, argv, 4);
  if (!args.is_ok()) return fail(args.status());
  return sub == "create" ? create(*args, argv[3]) : show(*args, argv[3]);
}

}  // namespace gemmtune::cli
