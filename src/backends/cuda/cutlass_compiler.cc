#include "cutlass_compiler.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <regex>
#include <sstream>

#include "cubin_cache.h"  // sha256, to_hex

extern char** environ;

namespace gemmtune::cuda {
namespace {

namespace fs = std::filesystem;

// nvcc's output for a broken instance runs to megabytes of template backtrace; the start names
// the first error.
constexpr std::size_t kLogChars = 3000;

#ifndef GEMMTUNE_CUTLASS_DEFAULT_DIR
#define GEMMTUNE_CUTLASS_DEFAULT_DIR ""
#endif
#ifndef GEMMTUNE_NVCC_DEFAULT
#define GEMMTUNE_NVCC_DEFAULT ""
#endif

std::string env_or(const char* name, const char* fallback) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? value : fallback;
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

struct CommandResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};

// Runs argv[0] (looked up on PATH) with stdout and stderr into `log`, and waits for it.
Result<CommandResult> run_command(const std::vector<std::string>& args, const fs::path& log) {
  std::vector<char*> argv;
  for (const std::string& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return Status(ErrorCode::unavailable, "cannot start " + args[0] + ": " + std::strerror(rc));
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return Status(ErrorCode::io_error, "waiting for " + args[0] + ": " + std::strerror(errno));
  }
  CommandResult result;
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.output = read_file(log);
  return result;
}

// A fresh folder for one compile, removed with the object.
struct ScratchDir {
  fs::path path;
  ScratchDir() {
    std::string pattern = (fs::temp_directory_path() / "gemmtune-cutlass-XXXXXX").string();
    if (mkdtemp(pattern.data()) != nullptr) path = pattern;
  }
  ~ScratchDir() {
    std::error_code ignored;
    if (!path.empty()) fs::remove_all(path, ignored);
  }
};

// `nvcc --version`'s last line ("Build cuda_13.0.r13.0/compiler.36424714_0"), once per nvcc.
Result<std::string> nvcc_version(const std::string& nvcc) {
  static std::mutex mutex;
  static std::map<std::string, std::string> known;
  std::lock_guard<std::mutex> lock(mutex);
  if (auto it = known.find(nvcc); it != known.end()) return it->second;
  ScratchDir scratch;
  if (scratch.path.empty()) return Status(ErrorCode::io_error, "cannot make a scratch folder for nvcc");
  GEMMTUNE_ASSIGN_OR_RETURN(CommandResult ran, run_command({nvcc, "--version"}, scratch.path / "version.txt"));
  if (ran.exit_code != 0) return Status(ErrorCode::unavailable, nvcc + " --version failed: " + ran.output);
  std::string text = ran.output;
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  const std::size_t line = text.rfind('\n');
  return known[nvcc] = line == std::string::npos ? text : text.substr(line + 1);
}

std::string cutlass_version_of(const std::string& header) {
  auto number = [&](const char* name) {
    const std::regex pattern(std::string("#define ") + name + R"(\s+(\d+))");
    std::smatch match;
    return std::regex_search(header, match, pattern) ? match[1].str() : std::string("?");
  };
  return number("CUTLASS_MAJOR") + "." + number("CUTLASS_MINOR") + "." + number("CUTLASS_PATCH");
}

}  // namespace

Result<CutlassSetup> cutlass_setup() {
  CutlassSetup setup;
  setup.cutlass_dir = env_or("GEMMTUNE_CUTLASS_DIR", GEMMTUNE_CUTLASS_DEFAULT_DIR);
  if (setup.cutlass_dir.empty()) {
    return Status(ErrorCode::unavailable,
                  "no CUTLASS location: configure with -DGEMMTUNE_CUTLASS_DIR=<checkout> or set GEMMTUNE_CUTLASS_DIR");
  }
  const fs::path version_header = fs::path(setup.cutlass_dir) / "include" / "cutlass" / "version.h";
  std::error_code error;
  if (!fs::is_regular_file(version_header, error)) {
    return Status(ErrorCode::unavailable,
                  "no CUTLASS headers at " + setup.cutlass_dir + " (" + version_header.string() + " is missing)");
  }
  setup.version = cutlass_version_of(read_file(version_header));
  if (setup.version.rfind("3.", 0) != 0 && setup.version.rfind("4.", 0) != 0) {
    return Status(ErrorCode::unavailable, "CUTLASS " + setup.version + " at " + setup.cutlass_dir +
                                              ": the family needs CUTLASS 3 or 4 (SM90 collective builders)");
  }
  setup.nvcc = env_or("GEMMTUNE_NVCC", GEMMTUNE_NVCC_DEFAULT);
  if (setup.nvcc.empty()) setup.nvcc = "nvcc";
  if (setup.nvcc.find('/') != std::string::npos && access(setup.nvcc.c_str(), X_OK) != 0) {
    return Status(ErrorCode::unavailable, "nvcc not found at " + setup.nvcc + " (set GEMMTUNE_NVCC)");
  }
  return setup;
}

std::vector<std::string> cutlass_nvcc_options(const CutlassSetup& setup, const std::vector<std::string>& defines,
                                              const std::string& arch) {
  std::vector<std::string> options = {
      "-O3", "-std=c++17", "-gencode=arch=compute_" + arch.substr(3) + ",code=" + arch, "-shared",
      "-Xcompiler=-fPIC", "-cudart=shared", "--expt-relaxed-constexpr",
      // CUTLASS's SM100 schedulers, which every SM90 kernel includes, trip this warning in nvcc 13.
      "-diag-suppress=20012", "-DNDEBUG", "-I" + setup.cutlass_dir + "/include",
      "-I" + setup.cutlass_dir + "/tools/util/include"};
  for (const std::string& define : defines) options.push_back("-D" + define);
  return options;
}

Result<CubinArtifact> obtain_cutlass_object(const CutlassSetup& setup, const std::string& source,
                                            const std::vector<std::string>& options, bool recompile) {
  GEMMTUNE_ASSIGN_OR_RETURN(std::string nvcc_build, nvcc_version(setup.nvcc));
  const std::string version_header =
      read_file(fs::path(setup.cutlass_dir) / "include" / "cutlass" / "version.h");
  // The key leaves the include paths out (the same CUTLASS unpacked elsewhere builds the same
  // object) and takes CUTLASS's version header instead.
  std::string material = source;
  for (const std::string& option : options) {
    if (option.rfind("-I", 0) != 0) material += '\0' + option;
  }
  material += std::string("\0nvcc ", 6) + nvcc_build + std::string("\0cutlass ", 9) + version_header;
  return obtain_cached(to_hex(sha256(material)), [&]() -> Result<std::string> {
    ScratchDir scratch;
    if (scratch.path.empty()) return Status(ErrorCode::io_error, "cannot make a scratch folder for nvcc");
    const fs::path cu = scratch.path / "gemm_cutlass.cu", object = scratch.path / "gemm_cutlass.so";
    {
      std::ofstream out(cu, std::ios::binary);
      out << source;
      if (!out) return Status(ErrorCode::io_error, "cannot write " + cu.string());
    }
    std::vector<std::string> command = {setup.nvcc};
    command.insert(command.end(), options.begin(), options.end());
    command.insert(command.end(), {cu.string(), "-o", object.string()});
    GEMMTUNE_ASSIGN_OR_RETURN(CommandResult ran, run_command(command, scratch.path / "nvcc.log"));
    const std::string log =
        ran.output.size() > kLogChars ? ran.output.substr(0, kLogChars) + "\n[log truncated]" : ran.output;
    if (ran.exit_code != 0) {
      return Status(ErrorCode::unsupported, "nvcc failed (exit " + std::to_string(ran.exit_code) + "):\n" + log);
    }
    if (ran.output.find("C7510") != std::string::npos) {
      return Status(ErrorCode::unsupported, "ptxas serialized the kernel's wgmma instructions (C7510):\n" + log);
    }
    std::string bytes = read_file(object);
    if (bytes.empty()) return Status(ErrorCode::io_error, "nvcc wrote no " + object.string());
    return bytes;
  }, recompile);
}

}  // namespace gemmtune::cuda
