// Command-line parsing for the gemmtune CLI: each command declares its options; anything else,
// a missing value or a value of the wrong kind is an error that names the argument.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "gemmtune/status.h"

namespace gemmtune::cli {

struct OptionSpec {
  std::string name;  // without the leading "--"
  bool takes_value;
  std::string help;  // "--m M  rows of A and C"
};

class Args {
 public:
  // Parses argv[first..argc). Errors name the offending argument and the command.
  static Result<Args> parse(const std::string& command, const std::vector<OptionSpec>& specs, int argc,
                            char** argv, int first);

  bool has(const std::string& name) const { return values_.count(name) || flags_.count(name); }
  bool flag(const std::string& name) const { return flags_.count(name) > 0; }
  std::string get(const std::string& name, const std::string& fallback) const;
  // Integer in [min, max]; `fallback` when absent.
  Result<std::int64_t> get_int(const std::string& name, std::int64_t fallback, std::int64_t min = 0,
                               std::int64_t max = INT64_MAX) const;
  Result<std::int64_t> require_int(const std::string& name, std::int64_t min = 0) const;
  Result<double> get_double(const std::string& name, double fallback) const;
  // Comma-separated list of integers (every one >= 1).
  Result<std::vector<std::int64_t>> get_int_list(const std::string& name, std::vector<std::int64_t> fallback) const;

 private:
  std::map<std::string, std::string> values_;
  std::set<std::string> flags_;
};

// "usage: gemmtune COMMAND [options]" followed by each option's help line.
std::string usage(const std::string& command, const std::string& summary, const std::vector<OptionSpec>& specs);

}  // namespace gemmtune::cli
