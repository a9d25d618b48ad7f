// gemmtune lut: the kernel lookup table: write one from the tuning store, check one, seal one
// after a hand edit (docs/lut-and-model.md).
#include <fstream>
#include <iostream>
#include <set>

#include "commands.h"
#include "common.h"
#include "gemmtune/lut.h"

namespace gemmtune::cli {
namespace {

constexpr const char* kLutSummary =
    "The kernel lookup table (docs/lut-and-model.md); GEMMTUNE_LUT=FILE or --lut FILE uses one.\n"
    "  export FILE     write a table from the tuning store: one entry per stored pick of this\n"
    "                  device (--all-devices: of every device), the pick first\n"
    "  validate FILE   check a table; every problem is printed with its line (exit 1 if any)\n"
    "  seal FILE       recompute the checksum of a table edited by hand, then validate it";

std::vector<OptionSpec> lut_specs() {
  std::vector<OptionSpec> specs = store_options();
  specs.push_back({"device", true, "--device D             whose entries export writes (default cpu)"});
  specs.push_back({"all-devices", false, "--all-devices          export the entries of every device"});
  specs.push_back({"device-class", false, "--device-class         export: entries name the device class, not the fingerprint"});
  specs.push_back({"mode", true, "--mode M               export: include (default) | only | use"});
  specs.push_back({"configs", true, "--configs N            export: configs per entry, the pick and the next fastest\n"
                                    "                       (default 1)"});
  specs.push_back({"json", false, "--json                 validate: print the problems as JSON"});
  return specs;
}

// Backends named by the table that this build cannot run: not an error in the table (it may
// be meant for another build), but worth saying.
std::vector<std::string> absent_backends(const LookupTable& table) {
  std::set<std::string> built;
  for (DeviceKind kind : {DeviceKind::cpu, DeviceKind::cuda}) {
    for (const BackendAvailability& backend : compiled_backends(kind)) {
      if (backend.available) built.insert(backend.name);
    }
  }
  std::set<std::string> absent;
  for (const LutEntry& entry : table.entries) {
    for (const LutChoice& choice : entry.configs) {
      if (!built.count(choice.backend)) absent.insert(choice.backend);
    }
  }
  return {absent.begin(), absent.end()};
}

int validate(const Args& args, const std::string& path) {
  auto text = LookupTable::read_text(path);
  if (!text.is_ok()) return fail(text.status());
  const std::vector<LutIssue> issues = LookupTable::validate(*text);
  auto table = LookupTable::parse(*text);
  const std::vector<std::string> absent = table.is_ok() ? absent_backends(*table) : std::vector<std::string>{};
  if (args.flag("json")) {
    nlohmann::json problems = nlohmann::json::array();
    for (const LutIssue& issue : issues) problems.push_back({{"line", issue.line}, {"message", issue.message}});
    std::cout << nlohmann::json{{"file", path},
                                {"ok", issues.empty()},
                                {"entries", table.is_ok() ? int(table->entries.size()) : 0},
                                {"problems", problems},
                                {"backends_not_built", absent}}
                     .dump(2)
              << "\n";
  } else {
    for (const LutIssue& issue : issues) std::cerr << path << ":" << issue.line << ": " << issue.message << "\n";
    for (const std::string& backend : absent) {
      std::cerr << path << ": note: backend '" << backend << "' is not built into this gemmtune\n";
    }
    if (issues.empty()) {
      std::cout << path << ": ok, " << table->entries.size() << " entries\n";
    } else {
      std::cerr << path << ": " << issues.size() << (issues.size() == 1 ? " problem" : " problems")
                << "; gemmtune would ignore this table\n";
    }
  }
  return issues.empty() ? kExitOk : kExitFailed;
}

int seal(const std::string& path) {
  auto text = LookupTable::read_text(path);
  if (!text.is_ok()) return fail(text.status());
  auto sealed = seal_lut_text(*text);
  if (!sealed.is_ok()) return fail(Status(sealed.status().code(), path + ": " + sealed.status().message()));
  const std::vector<LutIssue> issues = LookupTable::validate(*sealed);
  if (!issues.empty()) {
    for (const LutIssue& issue : issues) std::cerr << path << ":" << issue.line << ": " << issue.message << "\n";
    std::cerr << path << ": not sealed: fix the problems above first\n";
    return kExitFailed;
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << *sealed;
  if (!out.good()) return fail(Status(ErrorCode::io_error, "cannot write " + path));
  std::cout << path << ": sealed\n";
  return kExitOk;
}

int export_to(const Args& args, const std::string& path) {
  auto store = store_options_from(args);
  if (!store.is_ok()) return fail(store.status());
  LutExportOptions options;
  auto mode = parse_lut_mode(args.get("mode", "include"));
  if (!mode.is_ok()) return fail(invalid_argument("--mode: " + mode.status().message()));
  options.mode = *mode;
  auto configs = args.get_int("configs", 1, 1, 1000);
  if (!configs.is_ok()) return fail(configs.status());
  options.configs_per_entry = int(*configs);
  if (args.flag("all-devices") && args.flag("device-class")) {
    return fail(invalid_argument("--device-class names this device's class: it goes with one device, not --all-devices"));
  }
  if (!args.flag("all-devices")) {
    auto device = find_device(args.get("device", "cpu"));
    if (!device.is_ok()) return fail(device.status());
    options.device = device->fingerprint();
    if (args.flag("device-class")) options.device_class = device->device_class();
  }
  auto exported = export_lut(*store, options);
  if (!exported.is_ok()) return fail(exported.status());
  if (Status saved = exported->table.save(path); !saved.is_ok()) return fail(saved);
  std::cerr << "exported " << exported->table.entries.size() << " entries to " << path
            << (exported->skipped ? " (" + std::to_string(exported->skipped) + " damaged store entries left out)" : "")
            << "\n";
  return kExitOk;
}

}  // namespace

int run_lut(int argc, char** argv) {
  const std::vector<OptionSpec> specs = lut_specs();
  if (asks_for_help(argc, argv)) {
    std::cout << usage("lut export|validate|seal FILE", kLutSummary, specs);
    return kExitOk;
  }
  if (argc < 3) return fail(invalid_argument("lut needs a subcommand: export FILE, validate FILE or seal FILE"));
  const std::string sub = argv[2];
  if (sub != "export" && sub != "validate" && sub != "seal") {
    return fail(invalid_argument("unknown lut subcommand '" + sub + "' (see gemmtune lut --help)"));
  }
  if (argc < 4 || std::string(argv[3]).rfind("--", 0) == 0) return fail(invalid_argument("lut " + sub + " needs a FILE"));
  auto args = Args::parse("lut " + sub, specs, argc, argv, 4);
  if (!args.is_ok()) return fail(args.status());
  if (sub == "validate") return validate(*args, argv[3]);
  if (sub == "seal") return seal(argv[3]);
  return export_to(*args, argv[3]);
}

}  // namespace gemmtune::cli
