#include "worker_client.h"

#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <mutex>
#include <optional>
#include <set>

#include "cubin_cache.h"
#include "worker_protocol.h"

extern char** environ;

namespace gemmtune::cuda {
namespace {

// Compiling is done before verification, so the worker only loads and runs: a healthy check
// takes well under a second; a kernel still running after this has hung.
constexpr double kDefaultTimeoutSeconds = 20.0;

double timeout_seconds() {
  if (const char* text = std::getenv("GEMMTUNE_WORKER_TIMEOUT_S")) {
    const double value = std::atof(text);
    if (value > 0) return value;
  }
  return kDefaultTimeoutSeconds;
}

// GEMMTUNE_WORKER, else gemmtune-worker beside the running executable (build/bin holds both).
std::string worker_path() {
  if (const char* path = std::getenv("GEMMTUNE_WORKER"); path != nullptr && *path != '\0') return path;
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const auto beside = self.parent_path() / "gemmtune-worker";
    if (std::filesystem::exists(beside, ec)) return beside.string();
  }
  return {};
}

class Worker {
 public:
  ~Worker() { stop(); }

  Status verify(const VerifyRequest& request) {
    if (pid_ <= 0) GEMMTUNE_RETURN_IF_ERROR(start());
    const std::string line = encode(request) + "\n";
    if (!write_all(line)) {
      stop();
      return Status(ErrorCode::unavailable, "worker: could not send the request");
    }
    std::string reply;
    Status got = read_line(reply);
    if (!got.is_ok()) {
      stop();
      return got;
    }
    auto decoded = decode_reply(reply);
    if (!decoded.is_ok()) {
      stop();
      return decoded.status();
    }
    if (!decoded->ok) {
      // A failed kernel may have left the worker's context unusable: start afresh next time.
      stop();
      return Status(decoded->code == ErrorCode::ok ? ErrorCode::wrong_result : decoded->code, "worker: " + decoded->reason);
    }
    return Status::ok();
  }

  bool available() {
    if (path_.empty()) path_ = worker_path();
    return !path_.empty();
  }

 private:
  Status start() {
    int to_child[2], from_child[2];
    if (pipe(to_child) != 0 || pipe(from_child) != 0) return Status(ErrorCode::io_error, "worker: pipe failed");
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, to_child[0], STDIN_FILENO);
    posix_spawn_file_actions_adddup2(&actions, from_child[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&actions, to_child[1]);
    posix_spawn_file_actions_addclose(&actions, from_child[0]);
    // A fresh process (exec, not fork): a forked child cannot use CUDA once the parent has.
    setenv("GEMMTUNE_IN_WORKER", "1", 1);
    char* argv[] = {const_cast<char*>(path_.c_str()), nullptr};
    const int rc = posix_spawn(&pid_, path_.c_str(), &actions, nullptr, argv, environ);
    unsetenv("GEMMTUNE_IN_WORKER");
    posix_spawn_file_actions_destroy(&actions);
    close(to_child[0]);
    close(from_child[1]);
    if (rc != 0) {
      close(to_child[1]);
      close(from_child[0]);
      pid_ = -1;
      return Status(ErrorCode::unavailable, "worker: cannot start " + path_ + ": " + std::strerror(rc));
    }
    in_ = to_child[1];
    out_ = from_child[0];
    buffer_.clear();
    return Status::ok();
  }

  void stop() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    if (in_ >= 0) close(in_);
    if (out_ >= 0) close(out_);
    pid_ = -1;
    in_ = out_ = -1;
  }

  bool write_all(const std::string& text) {
    std::size_t done = 0;
    while (done < text.size()) {
      const ssize_t n = write(in_, text.data() + done, text.size() - done);
      if (n <= 0) return false;
      done += std::size_t(n);
    }
    return true;
  }

  // One reply line within the time limit; a hang or a death is reported as such.
  Status read_line(std::string& line) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_seconds());
    while (true) {
      if (auto newline = buffer_.find('\n'); newline != std::string::npos) {
        line = buffer_.substr(0, newline);
        buffer_.erase(0, newline + 1);
        return Status::ok();
      }
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) {
        return Status(ErrorCode::unavailable, "worker: timed out after " + std::to_string(int(timeout_seconds())) +
                                                  " s (the kernel hangs)");
      }
      pollfd fd{out_, POLLIN, 0};
      if (poll(&fd, 1, int(left.count())) <= 0) continue;
      char chunk[4096];
      const ssize_t n = read(out_, chunk, sizeof chunk);
      if (n <= 0) return Status(ErrorCode::unavailable, "worker: " + death());
      buffer_.append(chunk, std::size_t(n));
    }
  }

  std::string death() {
    int status = 0;
    if (pid_ > 0 && waitpid(pid_, &status, 0) == pid_) {
      pid_ = -1;
      if (WIFSIGNALED(status)) return std::string("died from signal ") + strsignal(WTERMSIG(status));
      if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
    }
    return "closed its pipe";
  }

  std::string path_;
  pid_t pid_ = -1;
  int in_ = -1, out_ = -1;
  std::string buffer_;
};

std::mutex worker_mutex;
Worker& worker() {
  static Worker instance;
  return instance;
}

}  // namespace

bool in_worker() {
  const char* flag = std::getenv("GEMMTUNE_IN_WORKER");
  return flag != nullptr && flag[0] == '1';
}

Status verify_in_worker(int device_index, const Problem& problem, const std::string& backend,
                        const KernelConfig& config, const std::string& cubin_key) {
  if (in_worker()) return Status::ok();
  // A kernel that passed once for this problem passes again: no second trip to the worker.
  // The mark a later process reads names the cubin (whose key covers the source, options, arch
  // and NVRTC version) and the problem, not the device index, which another process may number
  // differently.
  const std::string check = backend + "|" + config.to_string() + "|" + ProblemKey::of(problem).to_string() + "|" +
                            std::to_string(problem.alpha()) + "|" + std::to_string(problem.beta());
  const std::string key = std::to_string(device_index) + "|" + check;
  const std::optional<CubinCache> cache = CubinCache::from_environment();
  if (cache && !cubin_key.empty() && cache->passed(cubin_key, check)) return Status::ok();
  std::lock_guard lock(worker_mutex);
  static std::set<std::string> verified;
  if (verified.count(key)) return Status::ok();
  if (!worker().available()) {
    static bool warned = false;
    if (!warned) {
      std::fprintf(stderr,
                   "gemmtune: warning: gemmtune-worker not found (set GEMMTUNE_WORKER); JIT kernels are checked in "
                   "this process, where a faulting one can break the CUDA context\n");
      warned = true;
    }
    return Status::ok();
  }
  VerifyRequest request;
  request.device = device_index;
  request.problem = problem.spec();
  request.backend = backend;
  request.config = config;
  // One seed per problem, so the worker keeps one set of operands for all of a tuning's
  // candidates; the autotuner's own check in this process draws fresh inputs regardless.
  request.seed = 0x90e1d ^ std::hash<std::string>{}(ProblemKey::of(problem).to_string());
  GEMMTUNE_RETURN_IF_ERROR(worker().verify(request));
  verified.insert(key);
  if (cache && !cubin_key.empty()) {
    // Without the mark the next process only asks the worker again.
    if (Status marked = cache->mark_passed(cubin_key, check); !marked.is_ok()) {
      std::fprintf(stderr, "gemmtune: %s\n", marked.message().c_str());
    }
  }
  return Status::ok();
}

}  // namespace gemmtune::cuda
