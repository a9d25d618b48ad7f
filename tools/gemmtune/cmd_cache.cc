// gemmtune cache: look into the tuning store, move it between machines, empty it.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "commands.h"
#include "common.h"
#include "gemmtune/tuning_cache.h"

namespace gemmtune::cli {
namespace {

constexpr const char* kCacheSummary =
    "Inspects and moves the tuning store (docs/tuning-store.md).\n"
    "  stats          entries in the store, for this device and others, damaged ones\n"
    "  list           one line per entry: problem, pick, its time\n"
    "  export FILE    write every intact entry as JSON (FILE - for stdout)\n"
    "  import FILE    read entries exported elsewhere; all or nothing; entries of other devices\n"
    "                 are refused unless --any-device\n"
    "  clear          remove every entry (of the shared Redis store too, when one is set)\n"
    "The store is --cache PATH, else $GEMMTUNE_CACHE, else $XDG_CACHE_HOME/gemmtune/tuning.sqlite,\n"
    "tiered with $GEMMTUNE_REDIS_URL when set.";

std::vector<OptionSpec> cache_specs() {
  std::vector<OptionSpec> specs = store_options();
  specs.push_back({"device", true, "--device D             the device whose fingerprint import checks (default cpu)"});
  specs.push_back({"any-device", false, "--any-device           import entries measured on other devices too"});
  specs.push_back({"json", false, "--json                 print stats and list as JSON"});
  return specs;
}

struct Opened {
  std::unique_ptr<TuningCache> cache;
  StoreOptions options;
  std::string device;  // fingerprint of --device
};

Result<Opened> open_from(const Args& args) {
  Opened out;
  GEMMTUNE_ASSIGN_OR_RETURN(out.options, store_options_from(args));
  GEMMTUNE_ASSIGN_OR_RETURN(out.cache, TuningCache::open(out.options));
  GEMMTUNE_ASSIGN_OR_RETURN(DeviceInfo device, find_device(args.get("device", "cpu")));
  out.device = device.fingerprint();
  return out;
}

int stats(const Args& args, Opened& opened) {
  auto listed = opened.cache->entries();
  if (!listed.is_ok()) return fail(listed.status());
  int this_device = 0, other_device = 0, damaged = 0;
  for (const CachedEntry& entry : *listed) {
    if (!entry.damaged.empty()) {
      ++damaged;
    } else if (entry.device == opened.device) {
      ++this_device;
    } else {
      ++other_device;
    }
  }
  const std::string path = opened.options.resolved_path();
  std::error_code ec;
  const auto bytes = path == "off" ? 0 : std::filesystem::file_size(path, ec);
  if (args.flag("json")) {
    std::cout << nlohmann::json{{"store", opened.cache->describe()},
                                {"mode", store_mode_name(opened.options.mode)},
                                {"schema", tuning_store_schema_version()},
                                {"entries", listed->size()},
                                {"this_device", this_device},
                                {"other_devices", other_device},
                                {"damaged", damaged},
                                {"file_bytes", ec ? 0 : bytes}}
                     .dump(2)
              << "\n";
  } else {
    std::cout << "store:           " << opened.cache->describe() << " (" << store_mode_name(opened.options.mode) << ")\n"
              << "entries:         " << listed->size() << "\n"
              << "  this device:   " << this_device << "\n"
              << "  other devices: " << other_device << "\n"
              << "  damaged:       " << damaged << " (ignored and re-tuned when met)\n";
  }
  return kExitOk;
}

int list(const Args& args, Opened& opened) {
  auto listed = opened.cache->entries();
  if (!listed.is_ok()) return fail(listed.status());
  nlohmann::json rows = nlohmann::json::array();
  for (const CachedEntry& e : *listed) {
    if (!e.damaged.empty()) {
      rows.push_back({{"key", e.key}, {"damaged", e.damaged}});
      continue;
    }
    rows.push_back({{"key", e.key},
                    {"problem", e.problem},
                    {"this_device", e.device == opened.device},
                    {"backend", e.backend},
                    {"config", e.config},
                    {"time_us", e.time_us},
                    {"choices", e.choices}});
  }
  if (args.flag("json")) {
    std::cout << rows.dump(2) << "\n";
    return kExitOk;
  }
  for (const auto& row : rows) {
    if (row.contains("damaged")) {
      std::cout << "DAMAGED  " << row["key"].get<std::string>() << ": " << row["damaged"].get<std::string>() << "\n";
      continue;
    }
    std::cout << row["problem"].get<std::string>() << "  ->  " << row["backend"].get<std::string>() << " "
              << row["config"].get<std::string>() << "  " << row["time_us"].get<double>() << " us"
              << (row["this_device"].get<bool>() ? "" : "  (other device)") << "\n";
  }
  std::cout << rows.size() << " entries in " << opened.cache->describe() << "\n";
  return kExitOk;
}

int export_to(const std::string& file, Opened& opened) {
  auto exported = opened.cache->export_json();
  if (!exported.is_ok()) return fail(exported.status());
  if (file == "-") {
    std::cout << exported->document;
  } else {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out << exported->document;
    if (!out.good()) return fail(Status(ErrorCode::io_error, "cannot write " + file));
  }
  std::cerr << "exported " << exported->exported << " entries"
            << (exported->skipped ? " (" + std::to_string(exported->skipped) + " damaged ones left out)" : "") << "\n";
  return kExitOk;
}

int import_from(const Args& args, const std::string& file, Opened& opened) {
  if (opened.cache->mode() == StoreMode::read_only) {
    return fail(invalid_argument("the tuning store is read-only (--cache-mode ro)"));
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) return fail(Status(ErrorCode::io_error, "cannot read " + file));
  std::stringstream text;
  text << in.rdbuf();
  auto imported = opened.cache->import_json(text.str(), opened.device, args.flag("any-device"));
  if (!imported.is_ok()) {
    return fail(Status(imported.status().code(), "cannot import " + file + ": " + imported.status().message() +
                                                     " (nothing was imported)"));
  }
  std::cerr << "imported " << imported->imported << " entries into " << opened.cache->describe();
  if (imported->other_device) {
    std::cerr << "; refused " << imported->other_device << " measured on another device (--any-device takes them)";
  }
  std::cerr << "\n";
  return kExitOk;
}

}  // namespace

int run_cache(int argc, char** argv) {
  const std::vector<OptionSpec> specs = cache_specs();
  if (asks_for_help(argc, argv)) {
    std::cout << usage("cache stats|list|export FILE|import FILE|clear", kCacheSummary, specs);
    return kExitOk;
  }
  if (argc < 3) return fail(invalid_argument("cache needs a subcommand: stats, list, export FILE, import FILE or clear"));
  const std::string sub = argv[2];
  const bool takes_file = sub == "export" || sub == "import";
  if (sub != "stats" && sub != "list" && sub != "clear" && !takes_file) {
    return fail(invalid_argument("unknown cache subcommand '" + sub + "' (see gemmtune cache --help)"));
  }
  if (takes_file && (argc < 4 || std::string(argv[3]).rfind("--", 0) == 0)) {
    return fail(invalid_argument("cache " + sub + " needs a FILE"));
  }
  auto args = Args::parse("cache " + sub, specs, argc, argv, takes_file ? 4 : 3);
  if (!args.is_ok()) return fail(args.status());
  auto opened = open_from(*args);
  if (!opened.is_ok()) return fail(opened.status());
  if (sub == "stats") return stats(*args, *opened);
  if (sub == "list") return list(*args, *opened);
  if (sub == "export") return export_to(argv[3], *opened);
  if (sub == "import") return import_from(*args, argv[3], *opened);
  if (Status status = opened->cache->clear(); !status.is_ok()) return fail(status);
  std::cerr << "cleared " << opened->cache->describe() << "\n";
  return kExitOk;
}

}  // namespace gemmtune::cli
