#!/usr/bin/env python3
"""Summarize bench/compare.sh result directories into markdown tables.

usage: bench/summarize.py side DIR...      rdma against tuned, sm, han, and the best of them
       bench/summarize.py algs COLL DIR... one column per forced-algorithm run of COLL
                                           (DIRs named COLL-ALG, each a compare.sh -C rdma run),
                                           and one per built-in component of other DIRs
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


if __name__ == '__main__':
    if len(sys.argv) >= 3 and sys.argv[1] == 'side':
        side(sys.argv[2:])
    elif len(sys.argv) >= 4 and sys.argv[1] == 'algs':
        algs(sys.argv[2], sys.argv[3:])
    else:
        sys.exit(__doc__)
