#!/usr/bin/python3
"""numpy's float32 matmul of 1024² with the BLAS drop-in against the same program on OpenBLAS.

usage: bench/blas_numpy_matmul_bench.py DROP_IN_DIR [--size N] [--rounds R]

Each round runs the numpy program twice, once with LD_LIBRARY_PATH naming the drop-in and once
without (the system's libblas.so.3, OpenBLAS), in alternating order, each process timing 15
products after 3 untimed ones and reporting its median. The drop-in's tuning of the shape is
done before the rounds, into a scratch store that every drop-in process then reads. Reported:
each side's median over the rounds and the median of the round-by-round ratios OpenBLAS time /
drop-in time (above 1 the drop-in is faster); what the machine did during a round is in both
times of it.
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile

PROGRAM = """
import time, numpy as np
n = {size}
rng = np.random.default_rng(1)
a = rng.standard_normal((n, n), dtype=np.float32); b = rng.standard_normal((n, n), dtype=np.float32)
for _ in range(3): a @ b
times = []
for _ in range(15):
    start = time.perf_counter(); a @ b; times.append(time.perf_counter() - start)
times.sort(); print(times[len(times) // 2])
"""


def run(size, env):
    out = subprocess.run([sys.executable, "-c", PROGRAM.format(size=size)], env=env, check=True,
                         capture_output=True, text=True)
    return float(out.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("drop_in_dir")
    parser.add_argument("--size", type=int, default=1024)
    parser.add_argument("--rounds", type=int, default=8)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        base = dict(os.environ, OMP_WAIT_POLICY="passive")
        base.pop("LD_LIBRARY_PATH", None)
        drop_in = dict(base, LD_LIBRARY_PATH=args.drop_in_dir, GEMMTUNE_CACHE=os.path.join(scratch, "store.sqlite"))
        run(args.size, drop_in)  # tunes the shape (the fast mode by default) and stores the pick
        gemmtune, openblas, ratios = [], [], []
        for r in range(args.rounds):
            order = [("gemmtune", drop_in), ("openblas", base)]
            times = dict((name, run(args.size, env)) for name, env in (order if r % 2 == 0 else order[::-1]))
            gemmtune.append(times["gemmtune"])
            openblas.append(times["openblas"])
            ratios.append(times["openblas"] / times["gemmtune"])
            print(f"round {r}: drop-in {times['gemmtune'] * 1e3:.2f} ms, OpenBLAS {times['openblas'] * 1e3:.2f} ms")
    print(f"{args.size}^3 f32 matmul in numpy: drop-in {statistics.median(gemmtune) * 1e3:.2f} ms, "
          f"OpenBLAS {statistics.median(openblas) * 1e3:.2f} ms (medians of {args.rounds} rounds); "
          f"OpenBLAS / drop-in, round by round: median {statistics.median(ratios):.3f}, "
          f"range {min(ratios):.3f}-{max(ratios):.3f}")


if __name__ == "__main__":
    main()
