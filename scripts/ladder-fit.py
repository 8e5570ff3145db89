#!/usr/bin/env python3
"""The strength ladder's table (scripts/ladder.sh): reads referee records
(JSON lines) on stdin and prints, for every level L1..L10, its score
against the level below and its Elo fitted to every game at once.

The fit is the referee's model (docs/referee.md, Ratings): Bradley-Terry
on the Elo scale, P(i beats j) = 1 / (1 + 10^((Rj - Ri) / 400)), a draw
half a win each way, maximum likelihood by Newton's method, 95 % intervals
of +-1.96 standard errors from the observed information, level 1 fixed at
0. An agent that won or lost every game it played has no finite rating:
it is left out of the fit (repeatedly, as removing it can make another
one-sided) and listed with its record. Plain Python, no packages.

Usage: cat OUT/*/records.jsonl | scripts/ladder-fit.py
       scripts/ladder-fit.py --self-test
"""

import json
import math
import sys
from collections import defaultdict

ANCHOR = "L1"
SCALE = 400.0 / math.log(10.0)


def read_games(lines):
    """(a, b, score of a) for every game record."""
    games = []
    for line in lines:
        line = line.strip()
        if not line:
            continue
        r = json.loads(line)
        a, b = r["agents"]
        w = r.get("winner")
        games.append((a, b, 0.5 if w is None else (1.0 if w == 0 else 0.0)))
    return games


def solve(m, v):
    """m x = v by Gaussian elimination with partial pivoting."""
    n = len(v)
    a = [row[:] + [v[i]] for i, row in enumerate(m)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(a[r][c]))
        a[c], a[p] = a[p], a[c]
        for r in range(n):
            if r != c and a[c][c] != 0.0:
                f = a[r][c] / a[c][c]
                for k in range(c, n + 1):
                    a[r][k] -= f * a[c][k]
    return [a[i][n] / a[i][i] for i in range(n)]


def inverse(m):
    n = len(m)
    cols = [solve(m, [1.0 if i == j else 0.0 for i in range(n)]) for j in range(n)]
    return [[cols[j][i] for j in range(n)] for i in range(n)]


def one_sided(games, names):
    """Agents of `names` that won every game or lost every game they played."""
    out = set()
    for x in names:
        scores = [s if a == x else 1.0 - s for a, b, s in games if x in (a, b)]
        if scores and (all(s == 1.0 for s in scores) or all(s == 0.0 for s in scores)):
            out.add(x)
    return out


def fit(games, anchor=ANCHOR):
    """Ratings (natural-log scale) and their covariance, the anchor at 0."""
    names = sorted({x for a, b, _ in games for x in (a, b)})
    free = [x for x in names if x != anchor]
    index = {x: i for i, x in enumerate(free)}
    r = {x: 0.0 for x in names}
    for _ in range(100):
        grad = [0.0] * len(free)
        hess = [[0.0] * len(free) for _ in free]
        for a, b, s in games:
            p = 1.0 / (1.0 + math.exp(r[b] - r[a]))
            w = p * (1.0 - p)
            for x, sign in ((a, 1.0), (b, -1.0)):
                if x in index:
                    grad[index[x]] += sign * (s - p)
            for x in (a, b):
                for y in (a, b):
                    if x in index and y in index:
                        hess[index[x]][index[y]] += w if x == y else -w
        step = solve(hess, grad)
        for x, i in index.items():
            r[x] += step[i]
        if max((abs(d) for d in step), default=0.0) < 1e-10:
            break
    return r, inverse(hess), index


def record(games, x, y):
    """x's wins, losses, draws against y."""
    w = l = d = 0
    for a, b, s in games:
        if {a, b} != {x, y}:
            continue
        mine = s if a == x else 1.0 - s
        w += mine == 1.0
        l += mine == 0.0
        d += mine == 0.5
    return w, l, d


def table(games):
    names = sorted({x for a, b, _ in games for x in (a, b)})
    dropped = set()
    while True:
        new = one_sided([g for g in games if not ({g[0], g[1]} & dropped)], set(names) - dropped)
        if not new:
            break
        dropped |= new
    kept = [g for g in games if not ({g[0], g[1]} & dropped)]
    r, cov, index = fit(kept)
    levels = sorted((x for x in names if x.startswith("L") and x[1:].isdigit()), key=lambda x: int(x[1:]))
    print(f"{'level':<8}{'vs below (W-L-D)':>18}{'score':>8}{'fitted Elo':>12}{'95 %':>8}{'games':>7}")
    for x in levels:
        n = int(x[1:])
        below = f"L{n - 1}"
        vs, score = "-", "-"
        if below in levels:
            w, l, d = record(games, x, below)
            vs = f"{w}-{l}-{d}"
            score = f"{100.0 * (w + d / 2) / max(w + l + d, 1):.1f} %"
        played = sum(1 for a, b, _ in games if x in (a, b))
        if x in dropped:
            elo, err = "one-sided", ""
        else:
            elo = f"{SCALE * r[x]:+.0f}"
            err = "0" if x == ANCHOR else f"±{1.96 * SCALE * math.sqrt(cov[index[x]][index[x]]):.0f}"
        print(f"{x:<8}{vs:>18}{score:>8}{elo:>12}{err:>8}{played:>7}")
    others = [x for x in names if x not in levels]
    if others:
        print()
        print("baselines: fitted Elo (level 1 = 0) and each level's W-L-D against them")
        print(f"{'':<10}{'Elo':>10}" + "".join(f"{x:>9}" for x in levels))
        for y in others:
            if y in dropped:
                elo = "one-sided"
            else:
                elo = f"{SCALE * r[y]:+.0f}±{1.96 * SCALE * math.sqrt(cov[index[y]][index[y]]):.0f}"
            cells = "".join(f"{'%d-%d-%d' % record(games, x, y):>9}" for x in levels)
            print(f"{y:<10}{elo:>10}{cells}")
    if dropped:
        print()
        print("left out of the fit, every game won or every game lost:", ", ".join(sorted(dropped)))


def self_test():
    # Three agents 200 Elo apart, exact expected scores over many games:
    # the fit must give back the gaps.
    games = []
    truth = {"L1": 0.0, "L2": 200.0, "L3": 400.0}
    for x, y in (("L1", "L2"), ("L2", "L3"), ("L1", "L3")):
        p = 1.0 / (1.0 + 10 ** ((truth[y] - truth[x]) / 400.0))
        wins = round(1000 * p)
        games += [(x, y, 1.0)] * wins + [(x, y, 0.0)] * (1000 - wins)
    r, _, _ = fit(games)
    for x, want in truth.items():
        got = SCALE * r[x]
        assert abs(got - want) < 2.0, (x, got, want)
    assert one_sided(games + [("L1", "R", 1.0)], {"R"}) == {"R"}
    print("self-test passed")


if __name__ == "__main__":
    if sys.argv[1:] == ["--self-test"]:
        self_test()
    else:
        table(read_games(sys.stdin))
