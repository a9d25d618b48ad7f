#!/usr/bin/python3
"""A numpy program's float32 matmul through the BLAS drop-in.

Run with Debian's /usr/bin/python3 and python3-numpy (linked against libblas.so.3), with
LD_LIBRARY_PATH naming the drop-in's folder. Each float32 product below must reach gemmtune
(the drop-in's counters, read through ctypes from the libblas.so.3 numpy loaded) and match numpy's
float64 product, which OpenBLAS computes through the same library: that is the other routines
passed on. numpy computes a @ a.T with ssyrk, also OpenBLAS's.
"""
import ctypes
import sys

import numpy as np


class Counts(ctypes.Structure):
    _fields_ = [(name, ctypes.c_ulonglong)
                for name in ("calls", "served", "quick_returns", "scaled", "errors", "fallbacks")]


def main():
    blas = ctypes.CDLL("libblas.so.3")  # already loaded by numpy: the same library
    if not hasattr(blas, "gemmtune_blas_counts"):
        print("FAIL: numpy's libblas.so.3 is not the gemmtune drop-in (LD_LIBRARY_PATH?)")
        return 1
    blas.gemmtune_blas_counts.restype = Counts
    served = lambda: blas.gemmtune_blas_counts().served

    rng = np.random.default_rng(5)
    r = lambda *shape: rng.standard_normal(shape).astype(np.float32)
    a, b = r(96, 40), r(40, 72)
    wide = r(80, 2 * 40)
    cases = [
        ("contiguous", a, b, 1),
        ("A transposed (F-ordered view)", r(40, 96).T, b, 1),
        ("B transposed", a, r(72, 40).T, 1),
        ("both transposed", r(40, 96).T, r(72, 40).T, 1),
        ("A a strided view (lda = 2k)", wide[:, ::1][:, :40], b, 1),
        ("odd sizes", r(33, 17), r(17, 65), 1),
        ("a @ a.T (numpy calls ssyrk: OpenBLAS)", a, a.T, 0),
    ]
    failures = 0
    for name, x, y, expected_calls in cases:
        before = served()
        got = x @ y
        calls = served() - before
        want = x.astype(np.float64) @ y.astype(np.float64)
        error = float(np.max(np.abs(got - want)) / max(1.0, float(np.max(np.abs(want)))))
        ok = got.dtype == np.float32 and calls == expected_calls and error < 1e-5
        failures += not ok
        print(f"{'ok' if ok else 'FAIL'}: {name}: {x.shape} @ {y.shape}, {calls} sgemm call(s) served by gemmtune "
              f"(expected {expected_calls}), relative error {error:.1e}")
    counts = blas.gemmtune_blas_counts()
    if counts.fallbacks != 0:
        print(f"FAIL: {counts.fallbacks} call(s) fell back to OpenBLAS")
        failures += 1
    print(f"{len(cases)} products, {failures} failed; {counts.served} served by gemmtune in all")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
