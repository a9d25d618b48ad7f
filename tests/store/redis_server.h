// A real redis-server on a free loopback port, for tests and benchmarks: started as a child
// process, without persistence, killed when the object goes.
#pragma once

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>

#include "store/tuning_store.h"

namespace gemmtune::testing {

inline constexpr const char* kRedisServer = "/usr/bin/redis-server";

// Why Redis cannot be tested here, or "" when it can.
inline std::string redis_unavailable_reason() {
  if (!redis_store_built()) return "this build has no Redis store (hiredis absent)";
  if (access(kRedisServer, X_OK) != 0) return std::string(kRedisServer) + " is not installed";
  return "";
}

// A port nobody listens on now: bind to port 0 and let the kernel choose.
inline int free_loopback_port() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;
  socklen_t length = sizeof address;
  int port = -1;
  if (bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0) {
    port = ntohs(address.sin_port);
  }
  close(fd);
  return port;
}

class RedisServer {
 public:
  // Starts the server and waits (up to 5 s) until it answers; ready() says whether it did.
  RedisServer() : port_(free_loopback_port()) {
    pid_ = fork();
    if (pid_ == 0) {
      // Its start-up banner and memory warnings would bury the test output.
      const int null = open("/dev/null", O_WRONLY);
      dup2(null, STDOUT_FILENO);
      dup2(null, STDERR_FILENO);
      const std::string port = std::to_string(port_);
      execl(kRedisServer, kRedisServer, "--port", port.c_str(), "--bind", "127.0.0.1", "--save", "",
            "--appendonly", "no", "--daemonize", "no", "--loglevel", "warning", static_cast<char*>(nullptr));
      _exit(127);
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (pid_ > 0 && std::chrono::steady_clock::now() < deadline) {
      if (open_redis_store(url()).is_ok()) {
        ready_ = true;
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  ~RedisServer() { stop(); }
  RedisServer(const RedisServer&) = delete;
  RedisServer& operator=(const RedisServer&) = delete;

  bool ready() const { return ready_; }
  std::string url() const { return "redis://127.0.0.1:" + std::to_string(port_) + "/0"; }

  // Freezes the server: connections stay open but nothing answers, as with a hung host.
  void freeze() {
    if (pid_ > 0) kill(pid_, SIGSTOP);
  }

  void stop() {
    if (pid_ <= 0) return;
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }

 private:
  int port_;
  pid_t pid_ = -1;
  bool ready_ = false;
};

}  // namespace gemmtune::testing
