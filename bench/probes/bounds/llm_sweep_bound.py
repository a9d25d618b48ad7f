#!/usr/bin/env python3
"""The most any kernel can gain over cuBLASLt's first heuristic pick on the LLM sweep.

Reads the bench JSON files of `gemmtune bench --json` (scripts/gpu-check writes them as
bench-<dtype>-<N>x<K>.json) and, per shape, bounds the time of any kernel from below by the
larger of two floors: the flops at the tensor cores' datasheet rate, and the bytes of A, B and C
(each read or written once) at the memory's datasheet bandwidth. cuBLASLt's time over that floor
is the largest ratio any kernel could reach there; their geometric mean bounds the sweep's.

    python3 llm_sweep_bound.py [--tflops 989] [--tbs 3.35] bench-bf16-*.json
"""
import argparse
import json
import math

DTYPE_BYTES = {"bf16": (2, 2), "f16": (2, 2), "s8": (1, 4), "f32": (4, 4)}  # (input, output)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tflops", type=float, default=989.4,
                        help="tensor-core rate in TFLOP/s (TOP/s for s8; H100 SXM dense: 989.4 bf16, 1979 s8)")
    parser.add_argument("--tbs", type=float, default=3.35, help="memory bandwidth in TB/s (H100 SXM: 3.35)")
    parser.add_argument("--dtype", default=None, help="input dtype (default: the files' own)")
    parser.add_argument("files", nargs="+")
    args = parser.parse_args()
    rows = []
    for path in args.files:
        data = json.load(open(path))
        dtype = args.dtype or data.get("dtype", "bf16")
        in_bytes, out_bytes = DTYPE_BYTES[dtype]
        for s in data["shapes"]:
            peer = s["peers"].get("cublaslt", {})
            first = peer.get("default_time_us")
            if not first:
                continue
            m, n, k = s["m"], s["n"], s["k"]
            compute_us = 2.0 * m * n * k / (args.tflops * 1e6)
            memory_us = ((m * k + n * k) * in_bytes + m * n * out_bytes) / (args.tbs * 1e6)
            floor_us = max(compute_us, memory_us)
            ratio = peer.get("default_ratio_by_round") or first / s["gemmtune_us"]
            rows.append((m, n, k, first, floor_us, "compute" if compute_us > memory_us else "memory", ratio))
    print(f"{'M':>6} {'N':>6} {'K':>6} {'cuBLASLt us':>12} {'floor us':>9} {'bound':>8} {'max ratio':>9} {'measured':>9}")
    for m, n, k, first, floor_us, bound, ratio in rows:
        print(f"{m:>6} {n:>6} {k:>6} {first:>12.2f} {floor_us:>9.2f} {bound:>8} {first / floor_us:>9.3f} {ratio:>9.3f}")
    if rows:
        geomean = lambda values: math.exp(sum(map(math.log, values)) / len(values))
        print(f"geometric mean over {len(rows)} shapes: at most {geomean([r[3] / r[4] for r in rows]):.3f} "
              f"(datasheet floors); measured {geomean([r[6] for r in rows]):.3f}")


if __name__ == "__main__":
    main()
