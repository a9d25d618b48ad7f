# From the shipped model's four sweeps (build/sweeps/cpu-{train,heldout}-{nn,nt}.csv, made by
# scripts/train-cpu-model): for each prune factor, how many configs a tuning would time in
# full, what that costs (the sweep's measured full-timing costs), and in how many shapes the
# config with the best full time would have been pruned by its short sample.
import collections, csv, glob, math
rows = []
for f in sorted(glob.glob("build/sweeps/cpu-*-n?.csv")):
    rows += list(csv.DictReader(l for l in open(f) if not l.startswith("#")))
by = collections.defaultdict(list)
for r in rows:
    if r["status"] == "ok" and float(r["quick_us"]) > 0:
        by[r["problem"]].append(r)
quick_cost = sum(float(r["quick_cost_us"]) for shape in by.values() for r in shape)
print(f"short samples of every config: {quick_cost / 1e6:.0f} s")
for factor in (1.5, 1.75, 2.0, 2.5):
    lost, quality, full_count, full_cost = 0, [], 0, 0.0
    for shape in by.values():
        fastest_quick = min(float(r["quick_us"]) for r in shape)
        kept = [r for r in shape if float(r["quick_us"]) <= factor * fastest_quick]
        full_count += len(kept)
        full_cost += sum(float(r["full_cost_us"]) for r in kept if r["full"] == "1")
        timed = [float(r["time_us"]) for r in shape if r["full"] == "1"]
        kept_timed = [float(r["time_us"]) for r in kept if r["full"] == "1"]
        if timed and kept_timed and min(kept_timed) > min(timed) * 1.0001:
            lost += 1
            quality.append(min(timed) / min(kept_timed))
    print(f"prune {factor:.2f}: {full_count} configs timed in full, {full_cost / 1e6:.0f} s of full timing; "
          f"best lost in {lost} of {len(by)} shapes, worst {min(quality) if quality else 1:.3f}")
