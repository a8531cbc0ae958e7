# Tables from bench/bundle_compare.sh's raw.txt: per measurement, the best and
# the median of the rounds for "new", "old" and the reference (Open MPI /
# USQCD QMP), and the ratios new/old (median) and new/reference (best,
# median); for rates and bandwidths the ratios are inverted, so below 1 is
# always better for new. Usage: python3 bench/bundle_summary.py raw.txt
import sys, re, collections, statistics
d = collections.defaultdict(list)
for line in open(sys.argv[1]):
    m = re.match(r'R=(\d+) lib=(\S+) cfg=(\S+) n=(\d+) (.*)', line)
    if not m: continue
    r, lib, cfg, n, rest = m.groups()
    p = rest.split()
    if p[0] == 'p2p': key = (cfg, n, p[1] + ' ' + p[2]); val = float(p[3]); hib = p[1] in ('bw', 'rate')
    elif p[0] == 'coll' and p[1].startswith('op='):
        kv = dict(x.split('=') for x in p[1:]); key = (cfg, n, kv['op'] + ' ' + kv['bytes']); val = float(kv['us']); hib = False
    elif p[0] == 'coll': key = (cfg, n, p[1] + ' ' + p[2]); val = float(p[3]); hib = False
    elif p[0] == 'pingpong':  # bench/mpi_pingpong.c: 8 B latency, 1 MiB bandwidth
        kv = dict(x.split('=') for x in p[1:]); big = kv['bytes'] != '8'
        key = (cfg, n, ('bw ' if big else 'lat ') + kv['bytes']); val = float(kv['bandwidth_MBps' if big else 'latency_us']); hib = big
    elif p[0] == 'gather':
        kv = dict(x.split('=') for x in p[1:] if '=' in x); key = (cfg, n, 'gather ' + kv['bytes']); val = float(kv['us']); hib = False
    else: continue
    if lib in ('ompi', 'usqcd'): lib = 'ref'
    d[key + (lib,)].append(val); d[key + ('hib',)] = hib
keys = sorted({k[:3] for k in d}, key=lambda k: (k[0], int(k[1]), k[2].split()[0], float(re.sub(r'[^0-9.]', '', k[2].split()[1].split('/')[0]) or 0), k[2]))
print('| cfg | n | measurement | new best | new med | old best | old med | ref best | ref med | new/old med | new/ref best | new/ref med |')
print('|---|---|---|---|---|---|---|---|---|---|---|---|')
for k in keys:
    hib = d.get(k + ('hib',), False)
    def bm(lib):
        v = d.get(k + (lib,), [])
        if not v: return None, None
        return (max(v) if hib else min(v)), statistics.median(v)
    nb, nm = bm('new'); ob, om = bm('old'); rb, rm = bm('ref')
    f = lambda x: '-' if x is None else ('%.4g' % x)
    rat = lambda a, b: '-' if a is None or b is None or b == 0 else ('%.2f' % ((b / a) if hib else (a / b)))
    print(f'| {k[0]} | {k[1]} | {k[2]} | {f(nb)} | {f(nm)} | {f(ob)} | {f(om)} | {f(rb)} | {f(rm)} | {rat(nm, om)} | {rat(nb, rb)} | {rat(nm, rm)} |')
