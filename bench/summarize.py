#!/usr/bin/env python3
"""Summarize bench/compare.sh result directories into markdown tables.

usage: bench/summarize.py side DIR...      rdma against tuned, sm, han, and the best of them
       bench/summarize.py algs COLL DIR... one column per forced-algorithm run of COLL
                                           (DIRs named COLL-ALG, each a compare.sh -C rdma run),
                                           and one per built-in component of other DIRs
       bench/summarize.py rules MARGIN CAPS REPORT DIR...
                                           a tuning rules file (stdout) and its report (REPORT)
                                           from bench/tune.sh's runs (below)
Reads each DIR/table.md (compare.sh's medians over repetitions).
"""
import os
import re
import sys


def read_table(path):
    """{(coll, size): {config: microseconds}} from a compare.sh table.md."""
    rows, cols = {}, None
    for line in open(path):
        cells = [c.strip() for c in line.strip().strip('|').split('|')]
        if line.startswith('| collective'):
            cols = [re.sub(r' \(us\)$', '', c) for c in cells]
            continue
        if cols is None or not line.startswith('|') or line.startswith('|---'):
            continue
        rec = dict(zip(cols, cells))
        key = (rec['collective'], int(rec['size (B)']))
        rows[key] = {c: float(v) for c, v in rec.items()
                     if c not in ('collective', 'size (B)') and '/' not in c and v not in ('-', '')}
    return rows


def human(size):
    for unit, div in (('MiB', 1 << 20), ('KiB', 1 << 10)):
        if size >= div and size % div == 0:
            return '%d %s' % (size // div, unit)
    return '%d B' % size


def side(dirs):
    rows = {}
    for d in dirs:
        rows.update(read_table(os.path.join(d, 'table.md')))
    colls = []
    for coll, _ in sorted(rows, key=lambda k: k[1]):
        if coll not in colls:
            colls.append(coll)
    for coll in colls:
        print('\n**%s**\n' % coll)
        print('| size | rdma (us) | tuned | sm | han | rdma/tuned | rdma/best other |')
        print('|---:|---:|---:|---:|---:|---:|---:|')
        for (c, size) in sorted(k for k in rows if k[0] == coll):
            r = rows[(c, size)]
            others = [r[x] for x in ('tuned', 'sm', 'han') if x in r]
            fmt = lambda x: '%.2f' % r[x] if x in r else '-'
            ratio = lambda a, b: '%.2f' % (a / b) if a and b else '-'
            print('| %s | %s | %s | %s | %s | %s | %s |' % (
                human(size) if coll not in ('barrier', 'commdup') else '-', fmt('rdma'), fmt('tuned'),
                fmt('sm'), fmt('han'), ratio(r.get('rdma'), r.get('tuned')),
                ratio(r.get('rdma'), min(others) if others else None)))


def algs(coll, dirs):
    """One column per forced-algorithm run (a DIR named COLL-ALG, rdma column),
    plus the built-in components' columns of any DIR that has them."""
    data, names = {}, []
    for d in dirs:
        base = os.path.basename(d.rstrip('/'))
        alg = base.split('-', 1)[1] if base.startswith(coll + '-') else None
        for (c, size), r in read_table(os.path.join(d, 'table.md')).items():
            if c != coll:
                continue
            for cfg, v in r.items():
                name = alg if cfg == 'rdma' and alg else cfg if cfg != 'rdma' else None
                if name is None:
                    continue
                data.setdefault(size, {})[name] = v
                if name not in names:
                    names.append(name)
    builtin = [n for n in names if n in ('tuned', 'sm', 'han')]
    ours = [n for n in names if n not in builtin]
    names = ours + builtin
    print('| size | ' + ' | '.join(names) + ' | fastest |')
    print('|---:|' + '---:|' * (len(names) + 1))
    for size in sorted(data):
        r = data[size]
        best = min(r, key=r.get) if r else '-'
        print('| %s | %s | %s |' % (human(size) if coll != 'barrier' else '-',
                                    ' | '.join('%.2f' % r[n] if n in r else '-' for n in names), best))


ORDER_DEPENDENT = {('allreduce', 'nway'), ('allreduce', 'bruck')}
# the previous size's algorithm stays while within this factor of the fastest
HYSTERESIS = 1.05


def np_of(d):
    """The ranks of a compare.sh run, from its meta.txt."""
    for line in open(os.path.join(d, 'meta.txt')):
        m = re.match(r'np=(\d+) ', line)
        if m:
            return int(m.group(1))
    raise SystemExit('%s/meta.txt: no np= line' % d)


def raw_runs(d, coll, cfg):
    """{repetition: ({size: avg us}, {size: fraction coll/rdma served})} of
    configuration cfg from DIR/raw (coll_bench's rows and its "# served by
    coll/rdma" line; the fractions are empty where the run does not say)."""
    runs = {}
    raw = os.path.join(d, 'raw')
    for name in os.listdir(raw) if os.path.isdir(raw) else ():
        m = re.match(r'%s\.%s\.r(\d+)\.txt$' % (re.escape(coll), re.escape(cfg)), name)
        if not m:
            continue
        times, fractions = {}, {}
        for line in open(os.path.join(raw, name)):
            if line.startswith('# served by coll/rdma'):
                fractions = {int(a): float(b)
                             for a, b in re.findall(r' (\d+)=([\d.]+)', line.split(':', 1)[1])}
            elif not line.startswith('#') and len(line.split()) >= 2:
                times[int(line.split()[0])] = float(line.split()[1])
        runs[int(m.group(1))] = (times, fractions)
    return runs


def median(v):
    v = sorted(v)
    return v[len(v) // 2] if len(v) % 2 else (v[len(v) // 2 - 1] + v[len(v) // 2]) / 2


def paired(d, coll, cfg, tuned):
    """{size: (ratios to tuned within each repetition, median fraction served)}."""
    out = {}
    for rep, (times, fractions) in raw_runs(d, coll, cfg).items():
        for size, t in times.items():
            base = tuned.get(rep, ({}, {}))[0].get(size)
            if base:
                out.setdefault(size, ([], []))[0].append(t / base)
                out[size][1].append(fractions.get(size, 1.0))
    return {size: (r, median(f)) for size, (r, f) in out.items()}


def choose(coll, size, algs, margin, prev):
    """The algorithm for one size from {alg: paired(...) entry}, or fallback:
    the lowest median ratio among the algorithms that served the size's calls
    (not nway or Bruck for allreduce: they combine in rank-dependent orders, a
    rule would name them for order-independent pairs only), if that median is
    at most margin; the previous size's algorithm stays while within
    HYSTERESIS of the best."""
    ok = {a: median(r) for a, (r, f) in algs.items()
          if r and f >= 0.99 and (coll, a) not in ORDER_DEPENDENT and median(r) <= margin}
    if not ok:
        return 'fallback'
    best = min(ok, key=ok.get)
    return prev if prev in ok and ok[prev] <= HYSTERESIS * ok[best] else best


def smooth(picks):
    """[(size, alg)] with an algorithm chosen at one size alone between two
    sizes handed on (or after one, at the end) taken for noise: fallback."""
    out = list(picks)
    for i, (size, alg) in enumerate(picks):
        before = picks[i - 1][1] if i > 0 else None
        after = picks[i + 1][1] if i + 1 < len(picks) else 'fallback'
        if alg != 'fallback' and before == 'fallback' and after == 'fallback':
            out[i] = (size, 'fallback')
    return out


def rules(margin, caps, report, dirs):
    """Rules for coll_rdma_tuning_file from bench/tune.sh's runs: one compare.sh
    DIR per (ranks, collective) with the configurations tuned (the built-in
    components, what coll/rdma hands on to), rdma (auto's built-in table) and
    a_ALG (ALG forced).  Each size takes choose()'s algorithm, then smooth();
    a size between two measured ones takes the larger one's choice; runs of
    equal choices make one rule.  Rules hold for the measured ranks only.
    Where a collective is served above its *_max_bytes (CAPS: coll=bytes,...),
    one more rule hands on every larger call at any other size of
    communicator, and the report says which parameter to raise."""
    cap = {k: int(v) for k, v in (x.split('=') for x in caps.split(',') if x)}
    out, rep, top = [], [], {}
    for d in sorted(dirs, key=lambda d: (np_of(d), d)):
        ranks = np_of(d)
        table = read_table(os.path.join(d, 'table.md'))
        for coll in sorted({c for c, _ in table}):
            sizes = sorted(s for c, s in table if c == coll)
            algs = sorted({k[2:] for s in sizes for k in table[(coll, s)] if k.startswith('a_')})
            tuned = raw_runs(d, coll, 'tuned')
            pairs = {a: paired(d, coll, 'a_' + a, tuned) for a in algs}
            auto = paired(d, coll, 'rdma', tuned)
            picks = []
            for size in sizes:
                at = {a: pairs[a][size] for a in algs if size in pairs[a]}
                picks.append((size, choose(coll, size, at, margin, picks[-1][1] if picks else None)))
            picks = smooth(picks)
            rep.append('\n**%s, %d ranks**: median us of tuned; the others as the median ratio to '
                       'it within each repetition, * where coll/rdma handed the calls on; a rule '
                       'needs at most %.2f\n' % (coll, ranks, margin))
            rep.append('| size | tuned (us) | auto | ' + ' | '.join(algs) + ' | rule |')
            rep.append('|---:|---:|---:|' + '---:|' * len(algs) + '---|')
            cell = lambda e: '-' if not e or not e[0] else '%.2f%s' % (median(e[0]), '*' if e[1] < 0.99 else '')
            runs, lo = [], 0
            for size, pick in picks:
                t = table[(coll, size)].get('tuned')
                rep.append('| %s | %s | %s | %s | %s |' % (
                    human(size) if coll != 'barrier' else '-', '%.2f' % t if t else '-',
                    cell(auto.get(size)), ' | '.join(cell(pairs[a].get(size)) for a in algs), pick))
                if runs and runs[-1][2] == pick:
                    runs[-1][1] = size
                else:
                    runs.append([lo, size, pick])
                lo = size + 1
                if pick != 'fallback':
                    top[coll] = max(top.get(coll, 0), size)
            out.append('# %s, %d ranks' % (coll, ranks))
            for a, b, pick in runs:
                span = '*' if coll == 'barrier' else '%d-%d' % (a, b)
                out.append('%-9s %-4d %-18s %s' % (coll, ranks, span, pick))
    raise_caps = sorted((c, n) for c, n in top.items() if c in cap and n > cap[c])
    if raise_caps:
        out.append('# every other size of communicator: as with the caps this file was made for')
        rep.append('\nServed above the default caps: set ' + ', '.join(
            'coll_rdma_%s_max_bytes=%d' % (c, n) for c, n in raise_caps)
            + ' (the rules above hand on what is larger at other sizes of communicator).')
    for c, n in raise_caps:
        out.append('%-9s %-4s %-18s %s' % (c, '*', '%d-' % (cap[c] + 1), 'fallback'))
    with open(report, 'w') as f:
        f.write('\n'.join(rep).lstrip('\n') + '\n')
    print('\n'.join(out))
    for c, n in raise_caps:
        print('# to serve these rules, set coll_rdma_%s_max_bytes=%d' % (c, n), file=sys.stderr)


if __name__ == '__main__':
    if len(sys.argv) >= 3 and sys.argv[1] == 'side':
        side(sys.argv[2:])
    elif len(sys.argv) >= 4 and sys.argv[1] == 'algs':
        algs(sys.argv[2], sys.argv[3:])
    elif len(sys.argv) >= 6 and sys.argv[1] == 'rules':
        rules(float(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5:])
    else:
        sys.exit(__doc__)
