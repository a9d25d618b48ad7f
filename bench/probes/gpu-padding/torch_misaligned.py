"""PyTorch's figures for GEMMs whose leading dimension is not a multiple of 16 bytes (the peer for
gemmtune's padded operands): torch.mm in bf16 for layout tn (A stored K x M, so lda = M) at
M in {100, 300}, beside the same product with A copied into a K x M' buffer (M' = M rounded up
to 8) and the copy alone. CUDA events around batches of 40 calls, the median of 15 batches."""
import sys
import torch

def timed(fn, reps=15, batch=40):
    # A batch of calls between two events: one call alone reads the launch, not the kernel.
    for _ in range(10):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(batch):
            fn()
        stop.record(); stop.synchronize()
        times.append(start.elapsed_time(stop) * 1000 / batch)
    times.sort()
    return times[len(times) // 2]

print("m,n,k,layout,torch_us,padded_us,copy_us,aligned_nn_us")
for m, n, k in [(100, 4096, 4096), (300, 4096, 4096), (100, 4096, 14336), (300, 4096, 14336), (1000, 4096, 4096)]:
    a_t = torch.randn(k, m, device="cuda", dtype=torch.bfloat16)  # A stored K x M: lda = M
    b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16)
    mp = (m + 7) // 8 * 8
    a_pad = torch.zeros(k, mp, device="cuda", dtype=torch.bfloat16)
    plain = timed(lambda: torch.mm(a_t.t(), b))
    copy = timed(lambda: a_pad[:, :m].copy_(a_t))
    padded = timed(lambda: (a_pad[:, :m].copy_(a_t), torch.mm(a_pad[:, :m].t(), b)))
    a_nn = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    nn = timed(lambda: torch.mm(a_nn, b))
    print(f"{m},{n},{k},tn,{plain:.1f},{padded:.1f},{copy:.1f},{nn:.1f}")
    sys.stdout.flush()
