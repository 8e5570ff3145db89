#!/usr/bin/env python3
"""Texel fit of the Halma evaluation weights on self-play data.

The evaluation is linear in its weights (src/games/halma/eval.rs): eval =
w . x, with x the side to move's features minus the opponent's. The fit
minimises the mean squared error between sigmoid(K * eval) and the game's
result for the side to move (1, 0.5, 0):

  1. K is fitted first with the current hand-set weights (a 1-D search), and
     then kept: it fixes the evaluation's scale, so the fitted weights stay
     in the search's units (race scores, time-management thresholds).
  2. The weights are fitted by Levenberg-Marquardt (Gauss-Newton on the
     squared error, damped), on the training games only, optionally with a
     ridge penalty pulling them towards the hand-set ones (--ridge; several
     values are fitted and the one with the lowest held-out error is kept); a
     fifth of the games (game number % 5 == 0) is held out and its error is
     reported before and after.

Plain Python, no packages. The data come from (see README, Halma):

  agent halma texel-data --games 500 --seconds 2 --seed 1 \\
      --out /work/texel-data/selfplay-s2-g500.txt

Usage:
  scripts/texel-fit.py DATA [--from hand-set|current] [--fix NAME ...] [--zero NAME ...]
                       [--ridge R ...] [--iterations N]
  scripts/texel-fit.py --self-test
"""

import argparse
import math
import os
import re
import random
import sys

# The hand-set weights of eval.rs (HAND_SET), in the data files' column order.
HAND_SET = {
    "progress": -20.0,
    "progress_sq": -1.0,
    "drift": -6.0,
    "drift_far": 0.0,
    "goal": 40.0,
    "own_camp": -60.0,
    "straggler": 0.0,
    "endgame": -12.0,
}


def sigmoid(z):
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-z))
    e = math.exp(z)
    return e / (1.0 + e)


def load(path):
    """(feature names, [(game, result, features)]) of a texel-data file."""
    names, rows = None, []
    with open(path) as f:
        for i, line in enumerate(f, 1):
            if line.startswith("#"):
                cols = line[1:].split()
                if names is None and cols[:6] == ["game", "ply", "result", "black", "white", "side"]:
                    names = cols[6:]
                continue
            cols = line.split()
            if not cols:
                continue
            if names is None or len(cols) != 6 + len(names):
                sys.exit(f"{path}:{i}: expected the header's {6 + (len(names) if names else 0)} columns")
            try:
                rows.append((int(cols[0]), float(cols[2]), [float(v) for v in cols[6:]]))
            except ValueError:
                sys.exit(f"{path}:{i}: not a number in {line.strip()!r}")
    if names is None:
        sys.exit(f"{path}: no header line (# game ply result black white side ...)")
    return names, rows


def mse(rows, w, k):
    total = 0.0
    for _, r, x in rows:
        e = sum(wi * xi for wi, xi in zip(w, x))
        total += (sigmoid(k * e) - r) ** 2
    return total / len(rows)


def fit_k(rows, w):
    """The K minimising the error at weights w (golden section on log K)."""
    lo, hi = math.log(1e-5), math.log(1.0)
    g = (math.sqrt(5) - 1) / 2
    a, b = hi - g * (hi - lo), lo + g * (hi - lo)
    fa, fb = mse(rows, w, math.exp(a)), mse(rows, w, math.exp(b))
    for _ in range(40):
        if fa < fb:
            hi, b, fb = b, a, fa
            a = hi - g * (hi - lo)
            fa = mse(rows, w, math.exp(a))
        else:
            lo, a, fa = a, b, fb
            b = lo + g * (hi - lo)
            fb = mse(rows, w, math.exp(b))
    return math.exp((lo + hi) / 2)


def solve(a, b):
    """x with a x = b (Gaussian elimination with partial pivoting)."""
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(m[r][c]))
        m[c], m[p] = m[p], m[c]
        if abs(m[c][c]) < 1e-300:
            raise ZeroDivisionError("singular system")
        for r in range(c + 1, n):
            f = m[r][c] / m[c][c]
            for j in range(c, n + 1):
                m[r][j] -= f * m[c][j]
    x = [0.0] * n
    for r in reversed(range(n)):
        x[r] = (m[r][n] - sum(m[r][j] * x[j] for j in range(r + 1, n))) / m[r][r]
    return x


def penalty_scales(rows, k):
    """Per weight, (K * the feature's standard deviation)^2: a unit of the
    ridge penalty is a change of one sigmoid unit per standard deviation."""
    n, m = len(rows), len(rows[0][2])
    mean = [sum(x[i] for _, _, x in rows) / n for i in range(m)]
    return [k * k * sum((x[i] - mean[i]) ** 2 for _, _, x in rows) / n for i in range(m)]


def objective(rows, w, k, w0, ridge, scale):
    return mse(rows, w, k) + ridge * sum(c * (a - b) ** 2 for c, a, b in zip(scale, w, w0))


def fit_weights(rows, w0, k, free, iterations=30, log=print, ridge=0.0):
    """Levenberg-Marquardt on the weights whose indices are in `free`,
    minimising the error plus `ridge` times the scaled squared distance
    from w0 (see penalty_scales)."""
    scale = penalty_scales(rows, k) if ridge else [0.0] * len(w0)
    w = list(w0)
    err = objective(rows, w, k, w0, ridge, scale)
    lam = 1e-3
    n = len(rows)
    for it in range(iterations):
        # Normal equations of the linearised residuals sigmoid(K w.x) - r.
        jtj = [[0.0] * len(free) for _ in free]
        jtr = [0.0] * len(free)
        for _, r, x in rows:
            s = sigmoid(k * sum(wi * xi for wi, xi in zip(w, x)))
            d = s * (1 - s) * k
            g = [d * x[i] for i in free]
            res = s - r
            for a, ga in enumerate(g):
                jtr[a] += ga * res
                row = jtj[a]
                for b in range(a, len(g)):
                    row[b] += ga * g[b]
        for a, i in enumerate(free):
            for b in range(a):
                jtj[a][b] = jtj[b][a]
            jtr[a] = jtr[a] / n + ridge * scale[i] * (w[i] - w0[i])
            for b in range(len(free)):
                jtj[a][b] /= n
            jtj[a][a] += ridge * scale[i]
        improved = False
        while lam < 1e12:
            damped = [[jtj[a][b] * (1 + lam if a == b else 1) + (1e-12 if a == b else 0)
                       for b in range(len(free))] for a in range(len(free))]
            step = solve(damped, [-v for v in jtr])
            trial = list(w)
            for a, i in enumerate(free):
                trial[i] += step[a]
            e = objective(rows, trial, k, w0, ridge, scale)
            if e < err:
                w, lam, improved = trial, max(lam / 4, 1e-9), True
                rel = (err - e) / err
                err = e
                break
            lam *= 8
        log(f"  iteration {it + 1}: training objective {err:.6f} (n {n})")
        if not improved or rel < 1e-7:
            break
    return w


def current_weights(table_rs):
    """The weights the agent plays with: the `Weights` constant that
    `WEIGHTS` names in table.rs, read from the source so that the script
    never keeps a second copy of them."""
    text = open(table_rs).read()
    m = re.search(r"const WEIGHTS: Weights = (\w+);", text)
    if not m:
        sys.exit(f"{table_rs}: no `const WEIGHTS: Weights = NAME;` line")
    body = re.search(r"const " + m.group(1) + r": Weights = Weights \{(.*?)\};", text, re.S)
    if not body:
        sys.exit(f"{table_rs}: no `const {m.group(1)}: Weights = Weights {{ ... }};` block")
    return {k: float(v) for k, v in re.findall(r"(\w+):\s*(-?[0-9.]+),", body.group(1))}


def report(names, rows, fix, iterations, ridges, start=None, zero=()):
    train = [r for r in rows if r[0] % 5 != 0]
    test = [r for r in rows if r[0] % 5 == 0]
    games = len({r[0] for r in rows})
    print(f"{len(rows)} positions from {games} games: {len(train)} training, {len(test)} held out (game % 5 == 0)")
    start = start or HAND_SET
    missing = [n for n in names if n not in start]
    if missing:
        sys.exit(f"no starting weight for {missing}: add them to HAND_SET (or table.rs)")
    w0 = [start[n] for n in names]
    free = [i for i, n in enumerate(names) if n not in fix and n not in zero]
    k = fit_k(train, w0)
    print(f"K = {k:.6g} (fitted on the training games at the starting weights)")
    before = (mse(train, w0, k), mse(test, w0, k))
    print(f"error at the starting weights: training {before[0]:.6f}, held out {before[1]:.6f}")
    if zero:
        # At the same K, so the errors compare with the lines above.
        w0 = [0.0 if n in zero else v for n, v in zip(names, w0)]
        print(f"fitted without {', '.join(sorted(zero))} (weight 0)")
    fits = []
    for ridge in ridges:
        w = fit_weights(train, w0, k, free, iterations, log=lambda _: None, ridge=ridge)
        after = (mse(train, w, k), mse(test, w, k))
        print(f"ridge {ridge:g}: error training {after[0]:.6f}, held out {after[1]:.6f}")
        fits.append((after[1], ridge, w))
    _, ridge, w = min(fits, key=lambda f: f[0])
    print(f"lowest held-out error at ridge {ridge:g}:")
    print(f"{'weight':<12} {'start':>9} {'fitted':>9}")
    for n, a, b in zip(names, w0, w):
        tag = "  (fixed)" if n in fix else "  (zero)" if n in zero else ""
        print(f"{n:<12} {a:>9.3f} {b:>9.3f}{tag}")
    print("as eval.rs writes them:")
    print("\n".join(f"    {n}: {b:.1f}," for n, b in zip(names, w)))
    return k, w


def self_test():
    """On synthetic data drawn from known weights, the fit lowers the error
    from a wrong start and lands near the true weights."""
    rng = random.Random(7)
    truth = [-2.0, 0.5, 1.5]
    rows = []
    for g in range(3000):
        x = [rng.uniform(-3, 3) for _ in truth]
        p = sigmoid(sum(a * b for a, b in zip(truth, x)))
        rows.append((g, 1.0 if rng.random() < p else 0.0, x))
    start = [-1.0, 0.0, 0.0]
    w = fit_weights(rows, start, 1.0, [0, 1, 2], 50, log=lambda _: None)
    assert mse(rows, w, 1.0) < mse(rows, start, 1.0), "the fit did not lower the error"
    assert all(abs(a - b) < 0.4 for a, b in zip(w, truth)), f"fitted {w}, truth {truth}"
    # A fixed weight stays where it is.
    w = fit_weights(rows, start, 1.0, [1, 2], 50, log=lambda _: None)
    assert w[0] == start[0]
    k = fit_k(rows, truth)
    assert 0.7 < k < 1.4, k
    # A ridge pulls the weights towards the start.
    far = fit_weights(rows, start, 1.0, [0, 1, 2], 50, log=lambda _: None)
    near = fit_weights(rows, start, 1.0, [0, 1, 2], 50, log=lambda _: None, ridge=1.0)
    assert sum(abs(a - b) for a, b in zip(near, start)) < sum(abs(a - b) for a, b in zip(far, start))
    print("self-test passed")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("data", nargs="?", help="a file written by agent halma texel-data")
    p.add_argument("--fix", action="append", default=[], help="keep this weight at its hand-set value")
    p.add_argument("--zero", action="append", default=[], help="fit without this feature (its weight 0)")
    p.add_argument("--iterations", type=int, default=30)
    p.add_argument("--from", dest="start", choices=["hand-set", "current"], default="hand-set",
                   help="start (and fit K, and pull the ridge) at the hand-set weights or at the ones the agent "
                        "plays with now, read from src/games/halma/table.rs (--fix then keeps those)")
    p.add_argument("--ridge", type=float, action="append",
                   help="penalty on the scaled distance from the hand-set weights (repeatable: each is fitted, "
                        "the lowest held-out error wins; default 0, 0.001, 0.01, 0.1)")
    p.add_argument("--self-test", action="store_true")
    a = p.parse_args()
    if a.self_test:
        self_test()
        return
    if not a.data:
        p.error("the data file is required (or --self-test)")
    names, rows = load(a.data)
    unknown = [f for f in a.fix + a.zero if f not in names]
    if unknown:
        p.error(f"--fix/--zero: unknown weight(s) {unknown}; the weights are {names}")
    if len(rows) < 10:
        sys.exit(f"{a.data}: only {len(rows)} positions")
    if any(r < 0 for r in a.ridge or []):
        p.error("--ridge must not be negative")
    start = None
    if a.start == "current":
        start = current_weights(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src", "games", "halma", "table.rs"))
    report(names, rows, set(a.fix), a.iterations, a.ridge or [0.0, 0.001, 0.01, 0.1], start, set(a.zero))


if __name__ == "__main__":
    main()
