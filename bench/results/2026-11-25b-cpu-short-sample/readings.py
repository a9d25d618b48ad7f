# Reads readings.txt.gz: one line per config of two sweeps ("QUICK problem backend config…
# sample calibration full timed_in_full"), written by a temporary print in sweep_measure.cc.
# Prints how often each way of reading the short sample is far above the config's own full
# timing, which is what makes the prune drop a config it should have kept.
import gzip, os
rows = []
for line in gzip.open(os.path.join(os.path.dirname(__file__), "readings.txt.gz"), "rt"):
    x = line.split()
    sample, calibration, full, timed = float(x[-4]), float(x[-3]), float(x[-2]), int(x[-1])
    if timed and full > 0 and calibration > 0:
        rows.append((sample / full, min(sample, calibration) / full))
n = len(rows)
for over in (1.2, 1.5, 2.0):
    a = sum(r[0] > over for r in rows)
    b = sum(r[1] > over for r in rows)
    print(f"over {over}x its full time: the sample {a} of {n} ({100 * a / n:.2f}%), "
          f"the lower of sample and calibration {b} ({100 * b / n:.2f}%)")
for i, name in ((0, "sample"), (1, "lower of the two")):
    v = sorted(r[i] for r in rows)
    print(f"{name} / full time: 1st percentile {v[n // 100]:.3f}, median {v[n // 2]:.3f}, 99th {v[99 * n // 100]:.3f}")
