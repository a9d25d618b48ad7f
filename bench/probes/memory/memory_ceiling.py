"""The H100's measured memory ceilings, the floor the skinny (decode) kernels are held to:
a device-to-device copy (bytes read + written) and a read-only reduction over 4 GiB, and
PyTorch's F.linear (cuBLAS) at the decode shapes, replayed from a CUDA graph; each timed with
CUDA events, median of 20.

    python3 bench/probes/memory/memory_ceiling.py      (on the GPU machine; needs PyTorch)
"""
import torch


def median_ms(fn, repeat=20):
    fn()
    times = []
    for _ in range(repeat):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        times.append(start.elapsed_time(stop))
    return sorted(times)[len(times) // 2]


def main():
    n = 1 << 31  # bytes of bf16 per buffer (2 GiB)
    x = torch.randn(n // 2, device="cuda", dtype=torch.bfloat16)
    y = torch.empty_like(x)
    ms = median_ms(lambda: y.copy_(x))
    print(f"copy 2 GiB: {2 * n / ms / 1e9:.2f} TB/s (read + write)")
    ms = median_ms(lambda: x.view(torch.int32).sum(dtype=torch.int64))
    print(f"read 2 GiB (int32 sum): {n / ms / 1e9:.2f} TB/s")
    del x, y
    # F.linear at the decode shapes: weights rotated over 8 copies (> 2x the 50 MB L2).
    print(f"{'M':>4} {'N':>6} {'K':>6} {'us':>8} {'TB/s':>6}  torch.nn.functional.linear, bf16")
    for n_out, k in ((4096, 4096), (14336, 4096), (4096, 14336)):
        weights = [torch.randn(n_out, k, device="cuda", dtype=torch.bfloat16) for _ in range(8)]
        for m in (1, 8, 16, 32, 64):
            a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
            calls = 64
            # One CUDA graph of the calls, so Python's launch cost stays out of 10-us kernels.
            torch.nn.functional.linear(a, weights[0])
            torch.cuda.synchronize()
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph):
                outs = [torch.nn.functional.linear(a, weights[i % 8]) for i in range(calls)]
            ms = median_ms(graph.replay) / calls
            del outs
            moved = 2 * (m * k + n_out * k + m * n_out)
            print(f"{m:>4} {n_out:>6} {k:>6} {ms * 1e3:>8.2f} {moved / ms / 1e9:>6.2f}")


if __name__ == "__main__":
    main()
