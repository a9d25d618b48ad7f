import sys, statistics as st
rows={}
for line in open(sys.argv[1]):
    if not line.startswith('SAMPLES'): continue
    parts=line.split()
    # SAMPLES m=.. n=.. k=.. f32 nt name samples...
    prob=" ".join(parts[1:6])
    # name may contain spaces in config: find first numeric index
    j=6
    while True:
        try: float(parts[j]); break
        except: j+=1
    name=' '.join(parts[6:j]); vals=list(map(float,parts[j:]))
    rows.setdefault(prob,[]).append((name,vals))
for prob,items in rows.items():
    print(prob)
    base=items[0][1]
    for name,v in items:
        med=st.median(v)
        paired=st.median([a/b for a,b in zip(v,base)])
        print(f"  {name:55s} med={med:10.1f} med/sess={med/st.median(base):.3f} paired={paired:.3f}  spread={min(v)/med:.3f}-{max(v)/med:.3f}")
