#!/usr/bin/python3
"""What a Python call of gemmtune costs over the C++ call (issue 33's target: at most 5 us).

On a known shape, gemmtune.Session.matmul(a, b, out=c) from a Python loop against the same
Session::gemm called in a C++ loop (Session._time_gemm), in interleaved rounds so that the
machine's drift falls on both; the per-round differences' median is the overhead. A 1x1x1 f32
product keeps the kernel out of the figure. Also shows numpy's own a @ b for scale.

  PYTHONPATH=build/python GEMMTUNE_CACHE=off /usr/bin/python3 python/bench/call_overhead.py
"""
import statistics
import time

import numpy as np

import gemmtune

CALLS = 100_000
ROUNDS = 9


def python_loop(session, a, b, c):
    start = time.perf_counter()
    for _ in range(CALLS):
        session.matmul(a, b, out=c)
    return (time.perf_counter() - start) / CALLS * 1e6


def numpy_loop(a, b, c):
    start = time.perf_counter()
    for _ in range(CALLS):
        np.matmul(a, b, out=c)
    return (time.perf_counter() - start) / CALLS * 1e6


def main():
    session = gemmtune.Session(device="cpu", store="off")
    a, b, c = (np.ones((1, 1), dtype=np.float32) for _ in range(3))
    session.matmul(a, b, out=c)  # tunes the shape: every later call dispatches
    python_us, cpp_us, numpy_us = [], [], []
    for _ in range(ROUNDS):
        python_us.append(python_loop(session, a, b, c))
        cpp_us.append(session._time_gemm(a, b, c, CALLS))
        numpy_us.append(numpy_loop(a, b, c))
    overhead = [p - q for p, q in zip(python_us, cpp_us)]
    print(f"kernel: {session.pick(1, 1, 1)}")
    print(f"per call, median of {ROUNDS} rounds of {CALLS} calls:")
    print(f"  Session.matmul from Python  {statistics.median(python_us):7.3f} us")
    print(f"  Session::gemm from C++      {statistics.median(cpp_us):7.3f} us")
    print(f"  numpy.matmul (for scale)    {statistics.median(numpy_us):7.3f} us")
    print(f"  Python's overhead           {statistics.median(overhead):7.3f} us "
          f"(rounds {min(overhead):.3f} to {max(overhead):.3f}; target <= 5)")


if __name__ == "__main__":
    main()
