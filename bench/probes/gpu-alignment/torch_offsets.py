"""PyTorch's figures for offset_calls_probe: torch.mm(A, W.t()) in bf16 with A a view into a
larger buffer, on the 256-byte grid, 16 bytes past it and one element (2 bytes) past it.
Batches of 40 calls between two CUDA events, the median of 15; offsets take turns batch by batch.

    python3 torch_offsets.py [M N K ...]   (default 16 4096 4096, 300 4096 4096, 4096 4096 4096)"""
import sys
import torch

OFFSETS_BYTES = (0, 16, 2)
dims = [int(x) for x in sys.argv[1:]] or [16, 4096, 4096, 300, 4096, 4096, 4096, 4096, 4096]
print("m,n,k,a_offset_bytes,us")
for m, n, k in zip(dims[0::3], dims[1::3], dims[2::3]):
    buffer = torch.randn(m * k + 128, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(n, k, device="cuda", dtype=torch.bfloat16)
    views = [buffer[off // 2: off // 2 + m * k].view(m, k) for off in OFFSETS_BYTES]
    times = [[] for _ in OFFSETS_BYTES]
    for batch in range(-2, 15):
        for i, a in enumerate(views):
            start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            for _ in range(40):
                torch.mm(a, w.t())
            stop.record()
            stop.synchronize()
            if batch >= 0:
                times[i].append(start.elapsed_time(stop) * 1000 / 40)
    for off, t in zip(OFFSETS_BYTES, times):
        t.sort()
        print(f"{m},{n},{k},{off},{t[len(t) // 2]:.2f}")
    sys.stdout.flush()
