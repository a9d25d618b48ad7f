#include "cpu_thread_pool.h"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <thread>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define GEMMTUNE_SPIN_PAUSE() _mm_pause()
#else
#define GEMMTUNE_SPIN_PAUSE() ((void)0)
#endif

namespace gemmtune::cpu {
namespace {

// How long an idle worker spins before it sleeps. Long enough that the calls of a timing loop
// or of a layer-by-layer workload find it awake; short enough that it does not steal a core
// from whatever runs next for more than a fraction of a millisecond.
constexpr auto kSpin = std::chrono::microseconds(100);

void futex_wait(std::atomic<std::uint32_t>* word, std::uint32_t expected) {
  syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(word), FUTEX_WAIT_PRIVATE, expected, nullptr, nullptr, 0);
}
void futex_wake(std::atomic<std::uint32_t>* word) {
  syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(word), FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
}

// What the caller writes to start a worker and what the worker polls: one cache line, so a
// start costs one line transfer. The caller fills the task, then bumps the generation.
struct alignas(64) WorkerSlot {
  std::atomic<std::uint32_t> generation{0};
  std::atomic<std::uint32_t> sleeping{0};
  ParallelTask task = nullptr;
  void* context = nullptr;
  int threads = 1;
};
// What the worker writes when it is done (the generation it finished) and the caller polls:
// a line of its own, so finishing costs one transfer too.
struct alignas(64) DoneSlot {
  std::atomic<std::uint32_t> generation{0};
};

class Pool {
 public:
  explicit Pool(int workers)
      : workers_(workers), slots_(new WorkerSlot[std::size_t(workers) + 1]), done_(new DoneSlot[std::size_t(workers) + 1]) {
    for (int w = 1; w <= workers_; ++w) std::thread([this, w] { work(w); }).detach();
  }

  int workers() const { return workers_; }

  void run(int threads, ParallelTask task, void* context) {
    if (threads > workers_ + 1) threads = workers_ + 1;
    if (threads <= 1 || busy_.test_and_set(std::memory_order_acquire)) {
      task(context, 0, 1);
      return;
    }
    // Plain release stores: an atomic read-modify-write (or a fence) here would stall the
    // caller until it owns the worker's line, which the spinning worker keeps reading.
    for (int w = 1; w < threads; ++w) {
      WorkerSlot& slot = slots_[std::size_t(w)];
      slot.task = task;
      slot.context = context;
      slot.threads = threads;
      slot.generation.store(slot.generation.load(std::memory_order_relaxed) + 1, std::memory_order_release);
      // Wake a worker known to be asleep now rather than after this thread's own share.
      if (slot.sleeping.load(std::memory_order_relaxed) != 0) futex_wake(&slot.generation);
    }
    task(context, 0, threads);
    for (int w = 1; w < threads; ++w) {
      WorkerSlot& slot = slots_[std::size_t(w)];
      // Only this caller (holding busy_) writes the generation, so its own copy is current.
      const std::uint32_t expected = slot.generation.load(std::memory_order_relaxed);
      // A worker that went to sleep before it saw the new generation is woken here: it
      // announced the sleep before its last look at the generation, and this loop keeps
      // looking at the announcement until the worker is done, so no wake-up is lost.
      while (done_[std::size_t(w)].generation.load(std::memory_order_acquire) != expected) {
        if (slot.sleeping.load(std::memory_order_seq_cst) != 0) futex_wake(&slot.generation);
        GEMMTUNE_SPIN_PAUSE();
      }
    }
    busy_.clear(std::memory_order_release);
  }

 private:
  void work(int w) {
    WorkerSlot& slot = slots_[std::size_t(w)];
    std::uint32_t seen = 0;
    for (;;) {
      std::uint32_t now = slot.generation.load(std::memory_order_acquire);
      const auto spin_end = std::chrono::steady_clock::now() + kSpin;
      for (int spins = 1; now == seen; ++spins) {
        GEMMTUNE_SPIN_PAUSE();
        now = slot.generation.load(std::memory_order_acquire);
        if (now == seen && spins % 512 == 0 && std::chrono::steady_clock::now() > spin_end) {
          // Announce the sleep, then re-check: a caller that bumped the generation before
          // seeing the flag is caught by the re-check, one after it by the futex's own check.
          slot.sleeping.store(1, std::memory_order_seq_cst);
          while ((now = slot.generation.load(std::memory_order_seq_cst)) == seen) futex_wait(&slot.generation, seen);
          slot.sleeping.store(0, std::memory_order_relaxed);
        }
      }
      seen = now;
      slot.task(slot.context, w, slot.threads);
      done_[std::size_t(w)].generation.store(seen, std::memory_order_release);
    }
  }

  const int workers_;
  std::unique_ptr<WorkerSlot[]> slots_;
  std::unique_ptr<DoneSlot[]> done_;
  alignas(64) std::atomic_flag busy_ = ATOMIC_FLAG_INIT;
};

Pool& pool() {
  // Never destroyed: workers may still be asleep in the futex at exit.
  static Pool* const instance = new Pool(int(std::max(1u, std::thread::hardware_concurrency())) - 1);
  return *instance;
}

}  // namespace

void parallel_run(int threads, ParallelTask task, void* context) {
  if (threads <= 1) {
    task(context, 0, 1);
    return;
  }
  pool().run(threads, task, context);
}

int pool_workers() { return pool().workers(); }

}  // namespace gemmtune::cpu
