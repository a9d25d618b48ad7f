# The template with a mask of the split-k workspace fix-up's parts left out (GT_PROBE_SKIP 8:
# the fix-up, 16: its fence), for the probe: writes gemm_wgmma_skip.cuh beside it. Run in call 3
# on the template of 4fb427e; the workspace path is the same since.
p = "src/backends/cuda/kernels/gemm_wgmma.cuh"
t = open(p).read()
a = "  __threadfence();  // the partials are visible before the count says they are there\n"
assert a in t
t = t.replace(a, "#if !(GT_PROBE_SKIP & 16)\n" + a + "#endif\n")
b = """        if (!gt_split_fixup(acc, workspace, tile_counters, slot, tiles_m * tiles_n * GT_CONSUMER_SLOTS, unit.part,
                            last_flags + 4 * consumer, consumer)) {
          continue;  // another slice of this tile finishes it
        }
"""
assert b in t
t = t.replace(b, "#if !(GT_PROBE_SKIP & 8)\n" + b + "#else\n        (void)slot;\n#endif\n")
open("src/backends/cuda/kernels/gemm_wgmma_skip.cuh", "w").write(t)
