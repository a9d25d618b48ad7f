// The fork/join the CPU kernels run on. OpenMP's costs about 3 µs a region on the development
// machines, more than a whole 64³ product; this pool's workers spin briefly on a per-worker
// generation counter after each task and only then sleep on a futex, so back-to-back calls pay
// one cache-line round trip (~0.4 µs between the two cores of the development machine).
//
// The hot path allocates nothing and takes no lock: a caller that finds the pool in use (by
// another thread, or a nested call from inside a task) runs its task alone on its own thread.
#pragma once

namespace gemmtune::cpu {

using ParallelTask = void (*)(void* context, int thread, int threads);

// Runs task(context, t, threads) for every t in [0, threads), each once: t = 0 on the calling
// thread, the others on pool workers, except that a share whose worker has not started it a
// few microseconds after the caller is done with its own runs on the caller too (a worker
// asleep, or descheduled); returns when all have finished. So a task must not assume that
// two shares run at the same time, nor on different threads. `threads` is capped at the workers
// plus one; when it comes to 1 (or the pool is busy), task(context, 0, 1) runs alone, so a task
// must split its work by the `threads` it is given, never by the count it asked for.
void parallel_run(int threads, ParallelTask task, void* context);

// parallel_run for a callable body(thread, threads).
template <class Body>
void parallel_for_threads(int threads, Body& body) {
  parallel_run(threads, [](void* context, int thread, int count) { (*static_cast<Body*>(context))(thread, count); },
               &body);
}

// Workers of the pool (logical cores - 1); starts them on first use.
int pool_workers();

}  // namespace gemmtune::cpu
