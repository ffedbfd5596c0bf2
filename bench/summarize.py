#!/usr/bin/env python3
"""Summarize bench/compare.sh result directories into markdown tables.

usage: bench/summarize.py side DIR...      rdma against tuned, sm, han, and the best of them
       bench/summarize.py algs COLL DIR... one column per forced-algorithm run of COLL
                                           (DIRs named COLL-ALG, each a compare.sh -C rdma run),
                                           and one per built-in component of other DIRs
       bench/summarize.py rules MARGIN CAPS REPORT DIR...
                                           a tuning rules file (stdout) and its report (REPORT)
                                           from bench/tune.sh's runs (below)
       bench/summarize.py defaults MARGIN OVERRIDES REPORT DIR...
                                           the component's default rules (stdout) and their
                                           report from compare.sh runs of auto and forced
                                           configurations against tuned (bench/defaults.sh)
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


# Algorithms whose reason for winning does not depend on the number of ranks
# (docs/tuning.md, "The default rules"): one copy where coll/tuned makes two
# (the read bcast and allgather: every rank copies from the owner's window
# once), and a reduction of 1/P of the message per rank with every byte moved
# once in each half (rsag).  Above the largest measured communicator the
# largest one's choice for these is kept from EXTRAPOLATE_MIN_BYTES, where
# copies dominate a call; every other choice there is auto.
EXTRAPOLATE = {('bcast', 'read'), ('allreduce', 'rsag'), ('reduce', 'rsag'),
               ('allgather', 'read')}
EXTRAPOLATE_MIN_BYTES = 8192
# auto (the built-in table) stays unless another algorithm takes at most this
# fraction of its time: a table that adapts to the communicator within a
# band of ranks beats a name picked by noise
PREFER_AUTO = 0.9


def settle(picks, at, margin):
    """[(size, alg)] with a single size's pick between two sizes that agree
    taken for noise where their pick was measured within MARGIN there too
    (at: {size: {alg: (ratios, fraction)}})."""
    out = list(picks)
    for i in range(1, len(picks) - 1):
        near = picks[i - 1][1]
        e = at[picks[i][0]].get(near)
        if (picks[i][1] != near and picks[i + 1][1] == near
                and (near == 'fallback' or (e and e[0] and median(e[0]) <= margin))):
            out[i] = (picks[i][0], near)
    return out


def configs_of(d):
    """{config: mpirun arguments} of a compare.sh run, from its meta.txt."""
    out = {}
    for line in open(os.path.join(d, 'meta.txt')):
        m = re.match(r'config (\w+): mpirun\s*(.*)$', line)
        if m:
            out[m.group(1)] = m.group(2)
    return out


def served_alg(d, coll, cfg):
    """The one algorithm coll/rdma served coll with in configuration cfg's
    runs (raw/*.err statistics), or None where it served several or none."""
    served = set()
    raw = os.path.join(d, 'raw')
    for name in sorted(os.listdir(raw)):
        if re.match(r'%s\.%s\.r\d+\.err$' % (re.escape(coll), re.escape(cfg)), name):
            for line in open(os.path.join(raw, name)):
                m = re.match(r'\[coll/rdma\] rank \d+: %s (\w+): calls=(\d+)' % coll, line)
                if m and m.group(1) != 'fallback' and int(m.group(2)) > 0:
                    served.add(m.group(1))
    return served.pop() if len(served) == 1 else None


def label(d, coll, cfg, args):
    """The algorithm configuration cfg ran coll with: auto for the one named
    rdma (the built-in table as it was measured), the one it forces, else the
    one coll/rdma served (its statistics in raw/*.err) where it served one
    only (a configuration that only raised *_max_bytes), else auto."""
    m = re.search(r'coll_rdma_%s_algorithm (\w+)' % coll, args)
    if cfg == 'rdma' or m:
        return m.group(1) if m else 'auto'
    return served_alg(d, coll, cfg) or 'auto'


def rank_bands(nps):
    """{np: (lo, hi)}: each measured size of communicator stands for the
    sizes nearer to it than to a neighbour on a log scale (boundaries at the
    geometric means; 2, 4, 8, 16 give 2, 3-5, 6-11, 12-16)."""
    nps = sorted(nps)
    out = {}
    for i, n in enumerate(nps):
        lo = 2 if i == 0 else int((nps[i - 1] * n) ** 0.5) + 1
        hi = n if i + 1 == len(nps) else int((n * nps[i + 1]) ** 0.5)
        out[n] = (lo, hi)
    return out


def override(overrides, coll, ranks, size):
    """The algorithm an overrides rule (coll, ranks, lo, hi, alg) gives, or None."""
    for c, r, lo, hi, alg in overrides:
        if c == coll and r == ranks and lo <= size <= hi:
            return alg
    return None


def read_overrides(path):
    """([(coll, ranks, lo, hi, alg)], {ranks: margin}) from an overrides
    file ('-': none): lines 'coll ranks lo-hi alg' (ranks one measured size
    of communicator, bytes plain numbers, hi may be empty: no upper end) and
    'margin ranks M' (at these ranks an algorithm other than auto needs at
    most M), '#' comments."""
    out, margins = [], {}
    for line in open(path) if path != '-' else ():
        line = line.split('#', 1)[0].split()
        if not line:
            continue
        if line[0] == 'margin':
            margins[int(line[1])] = float(line[2])
            continue
        lo, hi = line[2].split('-')
        out.append((line[0], int(line[1]), int(lo), int(hi) if hi else 1 << 62, line[3]))
    return out, margins


def defaults(margin, overrides_path, report, dirs):
    """The component's default rules (coll_rdma_defaults.rules) from compare.sh
    runs (DIRs) of coll/rdma configurations against tuned: at each measured
    (ranks, collective, size) the configurations that served every call are
    candidates under the algorithm they ran (label()); choose() picks one by
    the median of the ratios to tuned paired within each repetition (at most
    MARGIN, else fallback) and smooth() drops a single size's pick.  Overrides
    (evidence the runs do not hold, such as another CPU's) replace picks.
    Each measured size of communicator gives rules for its band
    (rank_bands()); above the largest, the EXTRAPOLATE picks only."""
    overrides, margins = read_overrides(overrides_path)
    picks, rep, got = {}, [], {}
    for d in sorted(dirs, key=lambda d: (np_of(d), d)):
        ranks = np_of(d)
        table = read_table(os.path.join(d, 'table.md'))
        cfgs = {c: a for c, a in configs_of(d).items() if 'coll ^rdma' not in a}
        for coll in sorted({c for c, _ in table}):
            tuned = raw_runs(d, coll, 'tuned')
            labels = {c: label(d, coll, c, a) for c, a in cfgs.items()}
            runs = {c: paired(d, coll, c, tuned) for c in cfgs}
            names = sorted(set(labels.values()))
            same = served_alg(d, coll, 'rdma') if 'rdma' in cfgs else None
            rep.append('\n**%s, %d ranks** (%s): the median ratio to tuned within each repetition, '
                       '* where coll/rdma handed calls on; a pick needs at most %.2f\n'
                       % (coll, ranks, '/'.join(d.rstrip('/').split('/')[-2:]), margin))
            rep.append('| size | tuned (us) | ' + ' | '.join(names) + ' | pick |')
            rep.append('|---:|---:|' + '---:|' * len(names) + '---|')
            out, rows, ats = [], [], {}
            for size in sorted(s for c, s in table if c == coll):
                at = {}
                for c, lab in labels.items():
                    if size in runs[c] and runs[c][size][1] >= 0.99:
                        at.setdefault(lab, ([], 1.0))[0].extend(runs[c][size][0])
                # where auto served the call with the algorithm another
                # configuration names, both ran the same code: one candidate
                if same in at and 'auto' in at:
                    at['auto'][0].extend(at.pop(same)[0])
                # a stricter margin for the other algorithms at these ranks
                for lab in [a for a in at if a != 'auto' and ranks in margins]:
                    if median(at[lab][0]) > margins[ranks]:
                        del at[lab]
                shown = {lab: (r, f) for lab, (r, f) in at.items()}
                for c, lab in labels.items():
                    if lab not in shown and size in runs[c]:
                        shown[lab] = runs[c][size]
                prev = out[-1][1] if out else None
                pick = choose(coll, size, at, margin, prev)
                auto = median(at['auto'][0]) if 'auto' in at else None
                if pick not in ('auto', 'fallback', prev) and auto is not None and auto <= margin \
                        and median(at[pick][0]) > PREFER_AUTO * auto:
                    pick = 'auto'
                # what the built-in table served stays unless it was slower
                if pick == 'fallback' and auto is not None and auto <= 1.0:
                    pick = 'auto'
                out.append((size, pick))
                rows.append((size, table[(coll, size)].get('tuned'), shown))
                ats[size] = at
            out = smooth(settle(out, ats, margin))
            for i, (size, pick) in enumerate(out):
                forced = override(overrides, coll, ranks, size)
                if forced:
                    out[i] = (size, forced)
            cell = lambda e: '-' if not e or not e[0] else '%.2f%s' % (median(e[0]), '*' if e[1] < 0.99 else '')
            for (size, t, shown), (_, pick) in zip(rows, out):
                rep.append('| %s | %s | %s | %s |' % (
                    human(size), '%.2f' % t if t else '-',
                    ' | '.join(cell(shown.get(n)) for n in names), pick))
                e = ats[size].get(pick) or shown.get(pick)
                got[(coll, ranks, size)] = median(e[0]) if pick != 'fallback' and e and e[0] else None
            picks[(coll, ranks)] = out
    bands = rank_bands({r for _, r in picks})
    top = max(bands)
    lines = []
    for coll in ('barrier', 'bcast', 'allreduce', 'reduce', 'allgather', 'alltoall'):
        for ranks in sorted(r for c, r in picks if c == coll):
            lo_r, hi_r = bands[ranks]
            span = '%d' % lo_r if lo_r == hi_r else '%d-%d' % (lo_r, hi_r)
            lines.append('# %s, measured at %d ranks' % (coll, ranks))
            lines += rule_lines(coll, span, picks[(coll, ranks)])
            if ranks == top:
                beyond = [(s, p if (coll, p) in EXTRAPOLATE and s >= EXTRAPOLATE_MIN_BYTES else 'auto')
                          for s, p in picks[(coll, ranks)]]
                if any(p != 'auto' for _, p in beyond):
                    lines.append('# %s above %d ranks: the choices whose reason does not depend on P'
                                 % (coll, ranks))
                    lines += rule_lines(coll, '%d-' % (ranks + 1), beyond, skip_auto=True)
    with open(report, 'w') as f:
        f.write(summary(got) + '\n'.join(rep).lstrip('\n') + '\n')
    print('\n'.join(lines))


def summary(got):
    """Per measured size of communicator, what the picks measured: the
    median ratio to coll/tuned of the algorithm each rule names (-: handed
    on, coll/tuned's own time), one row per collective."""
    out = ['The picks as measured: the median ratio to coll/tuned (paired within repetitions) of the '
           'algorithm the rules name at each size; - where they hand the call on.\n']
    for ranks in sorted({r for _, r, _ in got}):
        sizes = sorted({s for c, r, s in got if r == ranks})
        out.append('\n**%d ranks**\n' % ranks)
        out.append('| collective | ' + ' | '.join(human(s) for s in sizes) + ' |')
        out.append('|---|' + '---:|' * len(sizes))
        for coll in ('barrier', 'bcast', 'allreduce', 'reduce', 'allgather', 'alltoall'):
            if any(c == coll and r == ranks for c, r, _ in got):
                out.append('| %s | ' % coll + ' | '.join(
                    '-' if got.get((coll, ranks, s)) is None else '%.2f' % got[(coll, ranks, s)]
                    if (coll, ranks, s) in got else ' ' for s in sizes) + ' |')
    return '\n'.join(out) + '\n\n'


def rule_lines(coll, span, picks, skip_auto=False):
    """Rules from [(size, alg)]: runs of equal picks, a size between two
    measured ones taking the larger one's pick; the last run ends at the
    largest size measured (beyond it the built-in table and *_max_bytes)."""
    runs, lo = [], 0
    for size, pick in picks:
        if runs and runs[-1][2] == pick:
            runs[-1][1] = size
        else:
            runs.append([lo, size, pick])
        lo = size + 1
    return ['%-9s %-6s %-18s %s' % (coll, span, '*' if coll == 'barrier' else '%d-%d' % (a, b), p)
            for a, b, p in runs if not (skip_auto and p == 'auto')]


if __name__ == '__main__':
    if len(sys.argv) >= 3 and sys.argv[1] == 'side':
        side(sys.argv[2:])
    elif len(sys.argv) >= 4 and sys.argv[1] == 'algs':
        algs(sys.argv[2], sys.argv[3:])
    elif len(sys.argv) >= 6 and sys.argv[1] == 'defaults':
        defaults(float(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5:])
    elif len(sys.argv) >= 6 and sys.argv[1] == 'rules':
        rules(float(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5:])
    else:
        sys.exit(__doc__)
