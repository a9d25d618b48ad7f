#include "args.h"

#include <charconv>
#include <cmath>
#include <cstdlib>

namespace gemmtune::cli {
namespace {

Result<std::int64_t> parse_int(const std::string& name, const std::string& text) {
  std::int64_t value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size() || text.empty()) {
    return invalid_argument("--" + name + ": expected an integer, got '" + text + "'");
  }
  return value;
}

}  // namespace

Result<Args> Args::parse(const std::string& command, const std::vector<OptionSpec>& specs, int argc, char** argv,
                         int first) {
  Args args;
  for (int i = first; i < argc; ++i) {
    const std::string token = argv[i];
    if (token.rfind("--", 0) != 0 || token.size() == 2) {
      return invalid_argument("unexpected argument '" + token + "' for 'gemmtune " + command + "' (see --help)");
    }
    std::string name = token.substr(2);
    std::string inline_value;
    bool has_inline = false;
    if (auto eq = name.find('='); eq != std::string::npos) {
      inline_value = name.substr(eq + 1);
      name = name.substr(0, eq);
      has_inline = true;
    }
    const OptionSpec* spec = nullptr;
    for (const OptionSpec& s : specs) {
      if (s.name == name) spec = &s;
    }
    if (spec == nullptr) {
      return invalid_argument("unknown option '--" + name + "' for 'gemmtune " + command + "' (see --help)");
    }
    if (!spec->takes_value) {
      if (has_inline) return invalid_argument("--" + name + " takes no value");
      args.flags_.insert(name);
      continue;
    }
    if (has_inline) {
      args.values_[name] = inline_value;
      continue;
    }
    // A value may start with '-' (a negative number is then rejected by its range check, with
    // a message naming the option), but never with "--": that is the next option.
    if (i + 1 >= argc || std::string(argv[i + 1]).rfind("--", 0) == 0) {
      return invalid_argument("--" + name + " needs a value");
    }
    args.values_[name] = argv[++i];
  }
  return args;
}

std::string Args::get(const std::string& name, const std::string& fallback) const {
  auto it = values_.find(name);
  return it == values_.end() ? fallback : it->second;
}

Result<std::int64_t> Args::get_int(const std::string& name, std::int64_t fallback, std::int64_t min,
                                   std::int64_t max) const {
  auto it = values_.find(name);
  if (it == values_.end()) return fallback;
  GEMMTUNE_ASSIGN_OR_RETURN(std::int64_t value, parse_int(name, it->second));
  if (value < min || value > max) {
    return invalid_argument("--" + name + " must be in [" + std::to_string(min) + ", " +
                            (max == INT64_MAX ? std::string("...") : std::to_string(max)) + "] (got " +
                            std::to_string(value) + ")");
  }
  return value;
}

Result<std::int64_t> Args::require_int(const std::string& name, std::int64_t min) const {
  if (!values_.count(name)) return invalid_argument("--" + name + " is required");
  return get_int(name, 0, min);
}

Result<double> Args::get_double(const std::string& name, double fallback) const {
  auto it = values_.find(name);
  if (it == values_.end()) return fallback;
  char* end = nullptr;
  const double value = std::strtod(it->second.c_str(), &end);
  if (it->second.empty() || end != it->second.c_str() + it->second.size() || !std::isfinite(value)) {
    return invalid_argument("--" + name + ": expected a finite number, got '" + it->second + "'");
  }
  return value;
}

Result<std::vector<std::int64_t>> Args::get_int_list(const std::string& name,
                                                     std::vector<std::int64_t> fallback) const {
  auto it = values_.find(name);
  if (it == values_.end()) return fallback;
  std::vector<std::int64_t> list;
  std::size_t pos = 0;
  const std::string& text = it->second;
  while (pos <= text.size()) {
    std::size_t comma = text.find(',', pos);
    if (comma == std::string::npos) comma = text.size();
    GEMMTUNE_ASSIGN_OR_RETURN(std::int64_t value, parse_int(name, text.substr(pos, comma - pos)));
    if (value < 1) return invalid_argument("--" + name + ": every entry must be >= 1 (got " + std::to_string(value) + ")");
    list.push_back(value);
    pos = comma + 1;
  }
  return list;
}

std::string usage(const std::string& command, const std::string& summary, const std::vector<OptionSpec>& specs) {
  std::string out = "usage: gemmtune " + command + " [options]\n\n" + summary + "\n\noptions:\n";
  for (const OptionSpec& spec : specs) out += "  " + spec.help + "\n";
  out += "  --help                 this text\n";
  return out;
}

}  // namespace gemmtune::cli
