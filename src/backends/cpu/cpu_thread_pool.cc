#include "cpu_thread_pool.h"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <alloca.h>

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
// How long a caller done with its own share waits for a worker that has not finished before
// it looks whether the worker has taken its share at all (and takes it if not). Well above a
// worker's lateness in back-to-back calls (~1 µs on the development VM), well below a
// wake-up or a descheduled vCPU (50-200 µs). Looking sooner cost the 64³ product 6-9 % at the
// median: it pulls the line the worker takes its next share on away from the worker.
constexpr auto kTakeAfter = std::chrono::microseconds(3);

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
// The last generation whose share was taken. Each share is taken once: by the worker, or,
// when the worker has not taken it kTakeAfter after the caller is done with its own share, by
// the caller. A worker asleep, or on a vCPU the hypervisor has taken away, then costs the
// call its share's time and kTakeAfter, not the 50-200 µs a wake-up takes on a VM. A line of
// its own, which the caller reads only when the worker is late: a worker taking its share
// from a line the caller has not read since is not held up by a line transfer.
struct alignas(64) ShareSlot {
  std::atomic<std::uint32_t> taken{0};
};

// Takes the share of `generation`. Every generation's share is taken before the caller starts
// the next, so an untaken share leaves the previous generation in the word.
bool take_share(ShareSlot& share, std::uint32_t generation) {
  std::uint32_t previous = generation - 1;
  return share.taken.compare_exchange_strong(previous, generation, std::memory_order_acq_rel,
                                             std::memory_order_relaxed);
}

// Whether the worker finishes `generation` within `wait`: no clock is read when it already has.
bool finished_within(const DoneSlot& done, std::uint32_t generation, std::chrono::nanoseconds wait) {
  if (done.generation.load(std::memory_order_acquire) == generation) return true;
  const auto end = std::chrono::steady_clock::now() + wait;
  for (int polls = 1;; ++polls) {
    GEMMTUNE_SPIN_PAUSE();
    if (done.generation.load(std::memory_order_acquire) == generation) return true;
    if (polls % 16 == 0 && std::chrono::steady_clock::now() > end) return false;
  }
}

class Pool {
 public:
  explicit Pool(int workers)
      : workers_(workers),
        slots_(new WorkerSlot[std::size_t(workers) + 1]),
        done_(new DoneSlot[std::size_t(workers) + 1]),
        shares_(new ShareSlot[std::size_t(workers) + 1]) {
    for (int w = 1; w <= workers_; ++w) std::thread([this, w] { work(w); }).detach();
  }

  int workers() const { return workers_; }

  // Not inlined into parallel_run: its frame lies below the gap parallel_run leaves.
  [[gnu::noinline]] void run(int threads, ParallelTask task, void* context) {
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
      // Only this caller (holding busy_) writes the generation, so its own copy is current.
      const std::uint32_t expected = slots_[std::size_t(w)].generation.load(std::memory_order_relaxed);
      DoneSlot& done = done_[std::size_t(w)];
      if (finished_within(done, expected, kTakeAfter)) continue;
      // A share nobody has taken yet is run here. The worker, when it comes to it, finds it
      // taken, and spins for the next call as after one of its own. A plain look first: a
      // failed exchange would take the line from the worker as a successful one does.
      ShareSlot& share = shares_[std::size_t(w)];
      if (share.taken.load(std::memory_order_acquire) != expected && take_share(share, expected)) {
        task(context, w, threads);
        continue;
      }
      while (done.generation.load(std::memory_order_acquire) != expected) GEMMTUNE_SPIN_PAUSE();
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
      // The slot's task is read only once the share is ours: a share the caller took may
      // already be followed by the caller writing the next task into the slot.
      if (!take_share(shares_[std::size_t(w)], seen)) continue;
      slot.task(slot.context, w, slot.threads);
      done_[std::size_t(w)].generation.store(seen, std::memory_order_release);
    }
  }

  const int workers_;
  std::unique_ptr<WorkerSlot[]> slots_;
  std::unique_ptr<DoneSlot[]> done_;
  std::unique_ptr<ShareSlot[]> shares_;
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
  // A worker reads the task's context, and what that refers to, from the caller's stack, while
  // this thread writes the frames of its own share just below. Where the caller's last line
  // and the share's first one are the same, the line goes back and forth between the two cores
  // for the whole share: one 64³ product read 5-10 % apart by where the caller's stack lay, in
  // steps of 64 bytes (bench/probes/timing/cpu_stack_offset.cc). Two unused lines keep the
  // share's frames off the caller's.
  void* gap = alloca(128);
  asm volatile("" : : "r"(gap) : "memory");
  pool().run(threads, task, context);
}

int pool_workers() { return pool().workers(); }

}  // namespace gemmtune::cpu
