// A writer killed with SIGKILL at a random moment, and the record of what it had committed.
//
// The writer runs in a child process and reports each write on a pipe once the store has
// returned from it: a reported number is a commit the store promised. The parent kills the
// child a random time after its first report, so that the kill lands anywhere in the writes
// (mid-transaction, mid-checkpoint, between a commit and its report), then collects every
// report; the test then opens the store and looks for each of them.
#pragma once

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace gemmtune::testing {

// In the child: tells the parent that write `index` has committed. A failed pipe write ends
// the child (the parent is gone or the test is broken; nothing is left to report to).
class CommitReporter {
 public:
  explicit CommitReporter(int fd) : fd_(fd) {}
  void committed(std::int64_t index) const {
    // 8 bytes, under PIPE_BUF: each report reaches the pipe whole or not at all.
    if (::write(fd_, &index, sizeof index) != sizeof index) _exit(90);
  }

 private:
  int fd_;
};

struct KillOutcome {
  std::vector<std::int64_t> reported;  // the child's commits, in the order it reported them
  bool killed = false;                 // SIGKILL ended it, as intended
  std::string trouble;                 // why the round proved nothing, when it did not; "" otherwise
};

namespace kill_detail {

// Appends the whole reports available on `fd` within `timeout_ms` (-1: until EOF); false at EOF.
inline bool read_reports(int fd, int timeout_ms, std::string& pending, std::vector<std::int64_t>& out) {
  pollfd p{fd, POLLIN, 0};
  if (::poll(&p, 1, timeout_ms) <= 0) return true;
  char buffer[4096];
  const ssize_t got = ::read(fd, buffer, sizeof buffer);
  if (got <= 0) return false;
  pending.append(buffer, std::size_t(got));
  std::size_t whole = pending.size() / sizeof(std::int64_t);
  for (std::size_t i = 0; i < whole; ++i) {
    std::int64_t index;
    std::memcpy(&index, pending.data() + i * sizeof index, sizeof index);
    out.push_back(index);
  }
  pending.erase(0, whole * sizeof(std::int64_t));
  return true;
}

}  // namespace kill_detail

// Forks; the child runs write(reporter), which writes without end and reports each commit,
// and _exits with its own code on a failure. The parent waits (up to `first_timeout`) for the
// first report, lets `delay` pass while it keeps reading, kills the child's process group (the
// child and any process it started) and drains the pipe; it returns once every process of the
// group is gone, so that nothing writes to the store while the test looks at it.
// The child must not use anything the parent set up with threads or open handles (a SQLite
// connection must never cross a fork): it opens its own.
template <class Write>
KillOutcome kill_after_first_commit(Write write, std::chrono::microseconds delay,
                                    std::chrono::milliseconds first_timeout = std::chrono::seconds(30)) {
  KillOutcome out;
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return {{}, false, "pipe failed"};
  // The group's orphans (a child's child, killed with it) come back to this process to be
  // reaped, rather than to init, which in a container may never reap them.
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  const pid_t pid = ::fork();
  if (pid < 0) return {{}, false, "fork failed"};
  if (pid == 0) {
    ::setpgid(0, 0);
    ::close(fds[0]);
    write(CommitReporter(fds[1]));
    _exit(91);  // the writer is meant to run until killed
  }
  ::setpgid(pid, pid);  // as the child does: whichever runs first
  ::close(fds[1]);
  using Clock = std::chrono::steady_clock;
  std::string pending;
  const auto give_up = Clock::now() + first_timeout;
  bool open = true;
  while (open && out.reported.empty() && Clock::now() < give_up) open = kill_detail::read_reports(fds[0], 10, pending, out.reported);
  const auto kill_at = Clock::now() + delay;
  while (open && Clock::now() < kill_at) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(kill_at - Clock::now()).count();
    open = kill_detail::read_reports(fds[0], int(left), pending, out.reported);
    if (left == 0) break;  // under a millisecond to go: poll cannot wait that little
  }
  if (open) std::this_thread::sleep_until(kill_at);
  ::kill(-pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  int other = 0;
  while (::waitpid(-pid, &other, 0) > 0 || errno == EINTR) {
  }
  while (kill_detail::read_reports(fds[0], -1, pending, out.reported)) {
  }
  ::close(fds[0]);
  out.killed = WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
  if (!out.killed) {
    out.trouble = "the writer ended on its own (exit status " + std::to_string(status) + ") before the kill";
  } else if (out.reported.empty()) {
    out.trouble = "the writer committed nothing before the kill";
  }
  return out;
}

}  // namespace gemmtune::testing
