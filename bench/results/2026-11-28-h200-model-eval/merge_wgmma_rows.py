import gzip, sys, collections
def read(path):
    op = gzip.open if path.endswith('.gz') else open
    lines = op(path, 'rt').read().splitlines()
    head = lines[:3]
    rows = collections.OrderedDict()
    done = []
    for l in lines[3:]:
        if l.startswith('# done'):
            done.append(l); continue
        if l.startswith('#') or not l.strip(): continue
        f = l.split(',')
        rows.setdefault(f[3], []).append((f[4], l))
    return head, rows, done
old_path, new_path, out_path = sys.argv[1:4]
oh, orows, odone = read(old_path)
nh, nrows, ndone = read(new_path)
assert oh[2] == nh[2], 'columns differ'
out = list(nh)
n_old = n_new = 0
for prob, rs in orows.items():
    keep = [l for b, l in rs if b != 'wgmma']
    new = [l for b, l in nrows.get(prob, []) if b == 'wgmma']
    assert new, 'no new wgmma rows for ' + prob
    out += keep + new
    out.append('# done ' + prob)
    n_old += len(keep); n_new += len(new)
assert set(nrows) <= set(orows), 'new shapes the old sweep lacks'
open(out_path, 'w').write('\n'.join(out) + '\n')
print(out_path, 'kept', n_old, 'rows of the other families,', n_new, 'new wgmma rows,', len(orows), 'shapes')
